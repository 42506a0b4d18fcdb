'use strict';
// Not a test: `node src/profile-top.js FILE.cpuprofile [TOP]` summarises a
// profile written by `node --cpu-prof`: self time per function (the top TOP,
// 25 by default) and per area (our src/, express and its modules, mysql2,
// Node's http/net/IPC internals, GC, idle), in % of the profile's busy time
// (idle excluded) and of its whole time.
const fs = require('node:fs');
const path = require('node:path');

// Express and the modules it pulls in, counted as one area.
const EXPRESS = /^(express|router|body-parser|finalhandler|send|serve-static|type-is|content-type|parseurl|path-to-regexp|on-finished|depd|http-errors|qs|raw-body|iconv-lite|media-typer|mime-types|accepts|negotiator|statuses|vary|encodeurl|escape-html|fresh|range-parser|cookie|merge-descriptors|utils-merge|debug|ms|proxy-addr|forwarded|ipaddr.js|content-disposition|etag|is-promise|once|wrappy|safe-buffer|setprototypeof|toidentifier|unpipe|destroy|ee-first|bytes|call-bound|get-intrinsic|es-errors|function-bind|hasown|side-channel.*|object-inspect|math-intrinsics|dunder-proto|get-proto|gopd|has-symbols|es-define-property|es-object-atoms|call-bind-apply-helpers)$/;

// V8's pseudo-frames by name, then the areas of Node's internals by URL, the
// first that matches winning.
const BY_NAME = new Map([
  ['(idle)', 'idle'],
  ['(garbage collector)', 'GC'],
  ['(program)', 'program (native, outside JS)'],
]);
const BY_URL = [
  [(u) => u.includes('/node-engine/src/'), 'node-engine src/'],
  [(u) => u.startsWith('node:internal/child_process') || u.includes('serialization') || u.includes('child_process'),
    'node: IPC (child_process, serialization)'],
  [(u) => u.startsWith('node:_http') || u.startsWith('node:http') || u.startsWith('node:internal/http'), 'node: http'],
  [(u) => u.startsWith('node:net') || u.startsWith('node:internal/stream_base') || u.includes('stream'),
    'node: net and streams'],
  [(u) => u.startsWith('node:internal/timers') || u.startsWith('node:timers'), 'node: timers'],
  [(u) => u.startsWith('node:'), 'node: other'],
];

function packageArea(url) {
  const m = url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  const pkg = m ? m[1] : 'node_modules';
  return EXPRESS.test(pkg) ? 'express and its modules' : pkg;
}

function areaOf(frame) {
  const url = frame.url || '';
  const name = frame.functionName;
  if (BY_NAME.has(name)) return BY_NAME.get(name);
  if (url.includes('/node_modules/')) return packageArea(url);
  const found = BY_URL.find(([matches]) => matches(url));
  if (found) return found[1];
  return url === '' ? `native: ${name || '(anonymous)'}` : 'other';
}

// Self time (µs) per function and per area, the whole and the idle time.
function selfTimes(prof) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map(); // node id -> µs
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i];
    self.set(id, (self.get(id) || 0) + (prof.timeDeltas[i] || 0));
  }
  const fns = new Map();
  const areas = new Map();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const f = byId.get(id).callFrame;
    total += us;
    if (f.functionName === '(idle)') idle += us;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
    fns.set(key, (fns.get(key) || 0) + us);
    const area = areaOf(f);
    areas.set(area, (areas.get(area) || 0) + us);
  }
  return { fns, areas, total, idle };
}

function summarise(file, top = 25) {
  const { fns, areas, total, idle } = selfTimes(JSON.parse(fs.readFileSync(file, 'utf8')));
  const busy = total - idle;
  const pct = (us, of) => `${((100 * us) / of).toFixed(1).padStart(5)} %`;
  const out = [];
  out.push(`${path.basename(file)}: ${(total / 1e6).toFixed(1)} s profiled, busy ${(busy / 1e6).toFixed(1)} s (${pct(busy, total).trim()})`);
  out.push('self time by area (% of busy):');
  for (const [k, us] of [...areas].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1])) out.push(`  ${pct(us, busy)}  ${k}`);
  out.push(`top ${top} functions by self time (% of busy):`);
  for (const [k, us] of [...fns].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`  ${pct(us, busy)}  ${k}`);
  return out.join('\n');
}

if (require.main === module) {
  if (process.argv.length < 3) {
    process.stderr.write('usage: node src/profile-top.js FILE.cpuprofile [TOP]\n');
    process.exit(2);
  }
  console.log(summarise(process.argv[2], Number(process.argv[3] || 25)));
}
