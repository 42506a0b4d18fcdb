'use strict';
// Where an engine runs (WORKERS). Both kinds look alike to the pool (engine-pool.js): an
// EventEmitter with 'message' and 'exit' (code, signal), send(msg), kill(), and an id.
//
// - processes, the 2014 design: a forked child process per engine; its messages are serialized
//   over an IPC pipe, and each child has its own V8 heap, event loop and process to schedule.
// - threads: a worker_thread of the HTTP process per engine; its messages go over the worker's
//   MessagePort (structured clone: no pipe, no JSON text). One process, one heap per isolate.
const { fork } = require('node:child_process');
const { Worker } = require('node:worker_threads');
const EventEmitter = require('node:events');

const KINDS = ['processes', 'threads'];

function startProcess(file, settings, silent) {
  const child = fork(file, [JSON.stringify(settings)], {
    stdio: silent ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (silent) child.stderr.on('data', () => {});
  const host = new EventEmitter();
  host.kind = 'process';
  host.id = child.pid;
  host.pid = child.pid;
  child.on('message', (msg) => host.emit('message', msg));
  child.on('exit', (code, signal) => host.emit('exit', code, signal));
  child.on('error', () => {}); // 'exit' follows and reports it
  host.send = (msg) => { if (child.connected) child.send(msg); };
  host.kill = (signal = 'SIGKILL') => child.kill(signal);
  return host;
}

function startThread(file, settings, silent, transferList) {
  const worker = new Worker(file, { workerData: settings, transferList, stdout: silent, stderr: silent });
  if (silent) {
    worker.stdout.on('data', () => {});
    worker.stderr.on('data', () => {});
  }
  const host = new EventEmitter();
  host.kind = 'thread';
  host.id = worker.threadId;
  host.pid = worker.threadId; // what tells one engine's incarnation from the next, as a child's pid does
  worker.on('message', (msg) => host.emit('message', msg));
  // A worker that throws ends with code 1, as a crashed child; terminate() is the SIGKILL of a thread.
  worker.on('error', (err) => process.stderr.write(`engine thread ${worker.threadId}: ${err && err.stack ? err.stack : err}\n`));
  worker.on('exit', (code) => host.emit('exit', code, null));
  host.send = (msg) => worker.postMessage(msg);
  host.kill = () => { worker.terminate(); };
  return host;
}

// transferList: MessagePorts in settings (threads only).
function startEngineHost(kind, file, settings, { silent = false, transferList = [] } = {}) {
  if (kind === 'threads') return startThread(file, settings, silent, transferList);
  return startProcess(file, settings, silent);
}

module.exports = { startEngineHost, KINDS };
