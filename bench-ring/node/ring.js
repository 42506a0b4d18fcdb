'use strict';
// The thread ring in Node.js (docs/ring.md): members 0..N-1 each forward what they receive to the next; a round
// ends when the last member has received every message. One JSON line per measured round on stdout, the shape
// RingJmh writes: ring, threads, members, messages, handovers, wallNs, cpuNs, cpus, pid.
//
//   node ring.js --ring loop-immediate|loop-microtask|workers|children [--members N] [--messages M]
//                [--threads W] [--warmups 1] [--rounds 2]
//
// loop-*: one event loop, each hand-over a setImmediate (a macrotask, through the loop) or a queueMicrotask.
// workers: W worker_threads, member i on worker i % W, so every hand-over crosses a MessagePort.
// children: W child processes, member i in child i % W; Node's IPC links a parent and a child only, so every
// hand-over is child -> parent -> child (two pipe messages), as node-engine's HTTP process and its engines talk.
const os = require('node:os');
const { Worker, MessageChannel, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { fork } = require('node:child_process');

function parse(argv) {
  const o = { ring: 'loop-immediate', members: 10000, messages: 500, threads: 2, warmups: 1, rounds: 2 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o)) throw new Error(`unknown option ${argv[i]}`);
    o[key] = key === 'ring' ? argv[i + 1] : Number(argv[i + 1]);
  }
  if (!(o.members >= 1 && o.messages >= 1 && o.threads >= 1)) throw new Error('members, messages, threads: at least 1');
  return o;
}

// --- one event loop ------------------------------------------------------------------------------------------
function loopRing(o, schedule) {
  let received = 0, atEnd = 0, resolve;
  const last = o.members - 1;
  const receive = (i) => {
    received++;
    if (i !== last) schedule(() => receive(i + 1));
    else if (++atEnd === o.messages) resolve();
  };
  return {
    round() {
      received = 0; atEnd = 0;
      return new Promise((r) => { resolve = r; for (let k = 0; k < o.messages; k++) schedule(() => receive(0)); });
    },
    received: async () => received,
    cpu: async () => ownCpu(),
    close() {},
  };
}

// --- worker_threads ------------------------------------------------------------------------------------------
function workerMember() {
  const { w, threads, members, messages } = workerData;
  let next, received = 0, atEnd = 0;
  parentPort.on('message', (m) => {
    if (m.next) { next = m.next; return; }
    if (m.reset) { received = 0; atEnd = 0; return; }
    if (m.count) { parentPort.postMessage({ received }); return; }
  });
  const onMember = (i) => {
    received++;
    if (i !== members - 1) next.postMessage(i + 1);
    else if (++atEnd === messages) parentPort.postMessage({ done: true });
  };
  // member 0's messages come from the main thread; every other hand-over on the previous worker's port
  parentPort.on('message', (m) => {
    if (typeof m === 'number') onMember(m);
    else if (m.inbox) m.inbox.on('message', onMember);
  });
  parentPort.postMessage({ ready: w, threads });
}

function ask(target, msg, key) {
  return new Promise((r) => {
    const on = (m) => { if (m && m[key] !== undefined) { target.off('message', on); r(m); } };
    target.on('message', on);
    if (target.postMessage) target.postMessage(msg); else target.send(msg);
  });
}

async function workersRing(o) {
  const ws = [];
  for (let w = 0; w < o.threads; w++) {
    const worker = new Worker(__filename, { workerData: { w, threads: o.threads, members: o.members, messages: o.messages } });
    await new Promise((r) => worker.once('message', r));
    ws.push(worker);
  }
  // channel w links worker w (its sending end) to worker w+1 (its receiving end, relayed into its members)
  for (let w = 0; w < o.threads; w++) {
    const { port1, port2 } = new MessageChannel();
    ws[w].postMessage({ next: port1 }, [port1]);
    ws[(w + 1) % o.threads].postMessage({ inbox: port2 }, [port2]);
  }
  const lastWorker = ws[(o.members - 1) % o.threads];
  return {
    async round() {
      ws.forEach((w) => w.postMessage({ reset: true }));
      const done = new Promise((r) => { const on = (m) => { if (m && m.done) { lastWorker.off('message', on); r(); } }; lastWorker.on('message', on); });
      for (let k = 0; k < o.messages; k++) ws[0].postMessage(0);
      await done;
    },
    async received() {
      let n = 0;
      for (const w of ws) n += (await ask(w, { count: true }, 'received')).received;
      return n;
    },
    cpu: async () => ownCpu(),
    close() { return Promise.all(ws.map((w) => w.terminate())); },
  };
}

// --- child processes -------------------------------------------------------------------------------------------
function childMember() {
  const members = Number(process.env.RING_MEMBERS), messages = Number(process.env.RING_MESSAGES);
  let received = 0, atEnd = 0;
  process.on('message', (m) => {
    if (typeof m === 'number') {
      received++;
      if (m !== members - 1) process.send(m + 1);
      else if (++atEnd === messages) process.send({ done: true });
    } else if (m.reset) { received = 0; atEnd = 0; } else if (m.count) {
      const c = process.cpuUsage();
      process.send({ received, cpu: c.user + c.system });
    } else if (m.stop) process.disconnect();
  });
  process.send({ ready: true });
}

async function childrenRing(o) {
  const cs = [];
  const env = { ...process.env, RING_CHILD: '1', RING_MEMBERS: String(o.members), RING_MESSAGES: String(o.messages) };
  for (let w = 0; w < o.threads; w++) {
    const c = fork(__filename, [], { env, serialization: 'json' });
    await new Promise((r) => c.once('message', r));
    cs.push(c);
  }
  let done;
  for (const c of cs) {
    c.on('message', (m) => {
      if (typeof m === 'number') cs[m % o.threads].send(m);
      else if (m && m.done) done();
    });
  }
  return {
    async round() {
      cs.forEach((c) => c.send({ reset: true }));
      const finished = new Promise((r) => { done = r; });
      for (let k = 0; k < o.messages; k++) cs[0].send(0);
      await finished;
    },
    async received() {
      let n = 0;
      for (const c of cs) n += (await ask(c, { count: true }, 'received')).received;
      return n;
    },
    async cpu() {
      let n = ownCpu();
      for (const c of cs) n += (await ask(c, { count: true }, 'received')).cpu;
      return n;
    },
    close() { cs.forEach((c) => c.send({ stop: true })); },
  };
}

// --- the rounds ------------------------------------------------------------------------------------------------
function open(o) {
  if (o.ring === 'loop-immediate') return loopRing(o, setImmediate);
  if (o.ring === 'loop-microtask') return loopRing(o, queueMicrotask);
  if (o.ring === 'workers') return workersRing(o);
  if (o.ring === 'children') return childrenRing(o);
  throw new Error(`no ring ${o.ring}: loop-immediate, loop-microtask, workers or children`);
}

/** CPU microseconds of this process, every thread of it (the workers too). */
function ownCpu() {
  const c = process.cpuUsage();
  return c.user + c.system;
}

/** One round: the clock from the first send to the last arrival, the CPU of every process of the ring around it. */
async function timed(ring) {
  const c0 = await ring.cpu();
  const t0 = process.hrtime.bigint();
  await ring.round();
  const wallNs = Number(process.hrtime.bigint() - t0);
  const cpuNs = (await ring.cpu() - c0) * 1000;
  return { received: await ring.received(), wallNs, cpuNs };
}

/** R, when it delivered exactly members x messages hand-overs (a ring that drops or double-delivers fails). */
function checked(r, o) {
  if (r.received !== o.members * o.messages) {
    throw new Error(`${o.ring}: delivered ${r.received} hand-overs, expected ${o.members * o.messages}`);
  }
  return r;
}

async function main(o, out = (line) => process.stdout.write(line + '\n')) {
  const ring = await open(o);
  const rounds = [];
  try {
    for (let k = 0; k < o.warmups + o.rounds; k++) {
      const r = checked(await timed(ring), o);
      if (k < o.warmups) continue;
      const line = { ring: `node-${o.ring}`, threads: o.ring.startsWith('loop') ? 1 : o.threads, members: o.members,
        messages: o.messages, handovers: r.received, wallNs: r.wallNs, cpuNs: Math.max(0, Math.round(r.cpuNs)),
        cpus: os.availableParallelism(), pid: process.pid };
      rounds.push(line);
      out(JSON.stringify(line));
    }
  } finally {
    await ring.close();
  }
  return rounds;
}

module.exports = { parse, main, checked };

if (!isMainThread) {
  workerMember();
} else if (process.env.RING_CHILD) {
  childMember();
} else if (require.main === module) {
  main(parse(process.argv.slice(2))).catch((e) => { console.error(`ring: ${e.message}`); process.exit(1); });
}
