// A bench child for append.concurrent: appends COUNT events to one session through the store
// API (dist/lib.cjs), starting when its parent writes "go" on stdin, so that every worker is
// loaded before the race starts. Prints "ready", then one JSON summary line at the end.
// Args: home, session id, worker index, count.
'use strict';
const { createHash } = require('node:crypto');
const { FsStore } = require('../../dist/lib.cjs');

const [home, id, workerArg, countArg] = process.argv.slice(2);
const worker = Number(workerArg);
const count = Number(countArg);
const store = new FsStore(home);
const surface = 'hook:bench';
const writer = { surface, instanceId: `hook:bench:w${worker}`, actor: 'user' };

function run() {
  const acked = [];
  const errors = {};
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const text = `worker ${worker} prompt ${i}`;
    try {
      store.append(id, { type: 'prompt.submitted', surface, actor: 'user', payload: { episode: `w${worker}`, text, digest: createHash('sha256').update(text).digest('hex') } }, writer);
      acked.push(i);
    } catch (e) {
      const code = e?.code || e?.message || String(e);
      errors[code] = (errors[code] || 0) + 1;
    }
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(`${JSON.stringify({ worker, acked, errors, ms })}\n`);
}

process.stdout.write('ready\n');
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  if (buf.includes('go')) {
    process.stdin.pause();
    run();
    process.exit(0);
  }
});
