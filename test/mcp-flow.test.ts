// `baton mcp`'s backpressure on stdio (src/mcp/flow.ts): no more than MAX_IN_FLIGHT requests are
// let through to the SDK until answers go out, none while the answers the client has not taken
// are over the high-water mark; notifications and answers pass; order is kept. Then the real
// server: a client that sends 200 requests for 1 MiB pages and reads nothing for a while gets
// every answer once it reads, from a server that held a bounded amount meanwhile.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { FlowGate, MAX_IN_FLIGHT, OutboundLines } from '../src/mcp/flow.ts';
import { BIN, tmpDir } from './helpers.ts';
import { makeSession } from './index-helpers.ts';

const req = (id: number): Buffer => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: {} }));
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('the gate: MAX_IN_FLIGHT requests at a time, one more per answer written; notifications pass; order kept', async () => {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const out = new OutboundLines(sink);
  const gate = new FlowGate(out);
  const through: string[] = [];
  gate.on('data', (b: Buffer) => through.push(b.toString()));
  for (let i = 1; i <= MAX_IN_FLIGHT + 4; i++) gate.write(req(i));
  gate.write(Buffer.from('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}'));
  await tick();
  assert.equal(through.length, MAX_IN_FLIGHT, 'held at the bound');
  out.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })}\n`);
  out.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, error: { code: -1, message: 'x' } })}\n`);
  await tick();
  await tick();
  assert.equal(through.length, MAX_IN_FLIGHT + 2, 'one more per answer');
  for (let i = 3; i <= 6; i++) out.write(`${JSON.stringify({ jsonrpc: '2.0', id: i, result: {} })}\n`);
  await tick();
  await tick();
  assert.equal(through.length, MAX_IN_FLIGHT + 5, 'the rest, and the notification after them in order');
  assert.deepEqual(
    through.map((t) => JSON.parse(t).id ?? 'note'),
    [...Array.from({ length: MAX_IN_FLIGHT + 4 }, (_, i) => i + 1), 'note'],
  );
});

test('the gate: nothing more read while the unread answers are over the high-water mark', async () => {
  let release: (() => void) | null = null;
  const sink = new Writable({
    highWaterMark: 1,
    write(_chunk, _enc, done) {
      release = done; // the client does not read
    },
  });
  const out = new OutboundLines(sink);
  const gate = new FlowGate(out, 100, 1000);
  const through: number[] = [];
  gate.on('data', (b: Buffer) => through.push(JSON.parse(b.toString()).id));
  gate.write(req(1));
  await tick();
  out.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { big: 'x'.repeat(5000) } })}\n`);
  out.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: 'y'.repeat(2000) } })}\n`);
  gate.write(req(2));
  await tick();
  assert.deepEqual(through, [1], 'request 2 waits while 7 KB of answers are unread');
  for (let i = 0; i < 3 && release; i++) {
    const r: () => void = release;
    release = null;
    r();
    await tick();
  }
  await tick();
  assert.deepEqual(through, [1, 2]);
});

test('baton mcp: 200 requests for 1 MiB pages from a client that reads nothing for a while: every answer comes, the server held a bounded amount, no listener warning', async () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  makeSession(home, 'big', ws, { id: 'big', texts: Array.from({ length: 120 }, (_, i) => `note ${i} ${'z'.repeat(30_000)}`) });
  const p = spawn(process.execPath, [BIN, 'mcp'], { env: { ...process.env, BATON_HOME: home, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  p.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const send = (o: unknown): void => {
    p.stdin.write(`${JSON.stringify(o)}\n`);
  };
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  p.stdout.pause();
  const N = 200;
  for (let i = 1; i <= N; i++) send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'session_log', arguments: { session: 'big', maxBytes: 1024 * 1024 } } });
  await new Promise((r) => setTimeout(r, 3000));
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const ids = new Set<number>();
  let buf = '';
  p.stdout.setEncoding('utf8');
  const done = new Promise<void>((res) => {
    p.stdout.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (typeof m.id === 'number' && m.id > 0) {
          assert.ok(m.result && !m.result.isError, JSON.stringify(m).slice(0, 300));
          ids.add(m.id);
          if (ids.size === N) res();
        }
      }
    });
  });
  p.stdout.resume();
  await done;
  p.stdin.end();
  await new Promise((r) => p.on('exit', r));
  assert.equal(ids.size, N);
  // Unbounded, 200 answers of ~2 MiB of JSON each took ~930 MiB here; the gate holds 16 in flight and 8 MiB unread (~170 MiB in all).
  assert.ok(rss < 400 * 1024 * 1024, `RSS while the client did not read: ${(rss / 2 ** 20).toFixed(0)} MiB`);
  assert.doesNotMatch(stderr, /MaxListenersExceeded/);
});
