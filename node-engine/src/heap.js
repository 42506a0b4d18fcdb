'use strict';
// A binary min-heap over an array. `less(a, b)` says whether a comes first.
// The market keeps one per product for sales orders and one for buyers; both
// use lazy deletion (closed entries are dropped when they reach the top), so
// the heap needs no remove-from-the-middle operation.
class MinHeap {
  constructor(less) {
    this.less = less;
    this.items = [];
  }

  get size() { return this.items.length; }

  peek() { return this.items[0]; }

  push(item) {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(a[i], a[parent])) break;
      [a[i], a[parent]] = [a[parent], a[i]];
      i = parent;
    }
  }

  pop() {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m])) m = l;
        if (r < a.length && this.less(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

module.exports = { MinHeap };
