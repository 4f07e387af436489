// A child that appends events to one session through the store API and reports each
// acknowledged one on stdout ("ack <n>"). Args: home, session id, count (0 = forever), tag,
// optionally a start time (ms since the epoch, '' for none) so that several children start
// together, and the bytes of padding in each event (default 200).
'use strict';
const { FsStore } = require('../../dist/lib.cjs');
const [home, id, countArg, tag, startAt, padArg] = process.argv.slice(2);
if (startAt) {
  const wait = Number(startAt) - Date.now();
  if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
}
const store = new FsStore(home);
const writer = { surface: 'cli', instanceId: 'test-children', actor: 'system' };
const count = Number(countArg);
const pad = 'p'.repeat(padArg ? Number(padArg) : 200);
for (let i = 1; count === 0 || i <= count; i++) {
  store.append(id, { type: 'x.test', surface: 'cli', actor: 'system', payload: { tag, i, pad } }, writer);
  process.stdout.write(`ack ${tag} ${i}\n`);
}
