'use strict';
// The main thread's side of the further HTTP threads (LISTENERS, http-thread.js): starts them on
// the port the main thread listens on, hands each its rings and its report port of every engine
// host that is ready (and again when a host is replaced), tells them of engines lost with a host,
// answers what they ask of the whole service (/stats, the fault injection's crash), and stops them
// first on shutdown: no thread accepts, every order each accepted is in its ring, then the
// engines drain.
const path = require('node:path');
const { Worker, MessageChannel } = require('node:worker_threads');

const FILE = path.join(__dirname, 'http-thread.js');

class HttpThreads {
  // ids: the shared id source; tally: the threads' counters' buffer; peerPorts[k]: thread k's ports
  // to the others (peers.js), thread 0 being the main thread.
  constructor({ config, engines, ids, tallyBuffer, snapshot, silent }) {
    this.config = config;
    this.engines = engines;
    this.ids = ids;
    this.tallyBuffer = tallyBuffer;
    this.snapshot = snapshot;
    this.silent = silent;
    this.threads = [];
    this.hosts = new Map(); // host index -> {engines, ports}: ready hosts, their ports not yet handed out
    const n = config.listeners;
    this.peerPorts = Array.from({ length: n }, () => []);
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        const { port1, port2 } = new MessageChannel();
        this.peerPorts[a].push(port1);
        this.peerPorts[b].push(port2);
      }
    }
    engines.on('hostReady', (host, list, ports) => {
      this.hosts.set(host, { engines: list, ports });
      for (const t of this.threads) this.handHost(t, this.hosts.get(host));
    });
    engines.on('lost', (engine) => {
      for (const t of this.threads) t.worker.postMessage({ t: 'lost', engine });
    });
  }

  // The main thread's own ports to the others.
  get mainPeerPorts() { return this.peerPorts[0]; }

  handHost(thread, host) {
    const port = host.ports[thread.index - 1];
    thread.worker.postMessage({ t: 'host', engines: host.engines, port }, [port]);
  }

  // Starts threads 1..LISTENERS-1 on `port` (and `host`, the main thread's: a socket on another
  // address would not share its connections); resolves when every one listens.
  start(port, host) {
    const starting = [];
    for (let k = 1; k < this.config.listeners; k++) {
      const worker = new Worker(FILE, {
        workerData: { thread: k, config: this.config, port, host, ids: this.ids.buffer, tally: this.tallyBuffer, peers: this.peerPorts[k] },
        transferList: this.peerPorts[k], stdout: this.silent, stderr: this.silent,
      });
      if (this.silent) { worker.stdout.on('data', () => {}); worker.stderr.on('data', () => {}); }
      const thread = { index: k, worker, waits: new Map() };
      this.threads.push(thread);
      for (const host of this.hosts.values()) this.handHost(thread, host);
      starting.push(new Promise((resolve, reject) => {
        worker.on('message', (msg) => this.onMessage(thread, msg, resolve, reject));
        worker.on('error', (err) => reject(err));
      }));
      // An HTTP thread that dies is a fault of the service, not of an engine: it stops, as on SIGTERM
      // (what waited for the thread's answer goes on without it).
      worker.on('exit', (code) => {
        thread.exited = true;
        for (const wait of thread.waits.values()) wait();
        thread.waits.clear();
        if (!thread.closing) this.onThreadExit(k, code);
      });
    }
    return Promise.all(starting);
  }

  onMessage(thread, msg, listening, failed) {
    switch (msg.t) {
      case 'listening': listening(); break;
      case 'error': failed(new Error(`HTTP thread ${thread.index}: ${msg.message}`)); break;
      case 'stats':
        Promise.resolve(this.snapshot()).then((snapshot) => thread.worker.postMessage({ t: 'stats', q: msg.q, snapshot }));
        break;
      case 'kill': this.engines.kill(msg.engine, 'SIGKILL'); break;
      default: {
        const wait = thread.waits.get(msg.t);
        if (wait) { thread.waits.delete(msg.t); wait(); }
      }
    }
  }

  ask(thread, t, answer) {
    if (thread.exited) return Promise.resolve();
    return new Promise((resolve) => {
      thread.waits.set(answer, resolve);
      thread.worker.postMessage({ t });
    });
  }

  // Every thread stops accepting and has written what it accepted into the rings.
  stop() {
    return Promise.all(this.threads.map((t) => this.ask(t, 'stop', 'stopped')));
  }

  // Connections closed, pools ended, threads gone.
  async close() {
    await Promise.all(this.threads.map(async (t) => {
      t.closing = true;
      await this.ask(t, 'close', 'closed');
      await t.worker.terminate();
    }));
  }

  onThreadExit(index, code) {
    process.stderr.write(`node-engine: HTTP thread ${index} ended (exit code ${code}); stopping\n`);
    process.kill(process.pid, 'SIGTERM');
  }
}

module.exports = { HttpThreads };
