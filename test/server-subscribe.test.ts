// event/subscribe under concurrent writers (server.md): while other processes append — CLI
// processes racing each other, and a second server — every subscriber receives every event
// after its `after` exactly once, in seq order, the replay gap before the live events; the
// same sequence the log holds at the end. Also: the generated files are current, and the
// wire is plain JSON-RPC 2.0 (driven by json-rpc-2.0's own client, not ours).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { JSONRPCClient } from 'json-rpc-2.0';
import { BIN, ROOT, baton, batonAsync, readJsonl, tmpDir } from './helpers.ts';
import { envFor, startServer, stdioClient, until, wsClient } from './server-helpers.ts';

const CLI = { BATON_INSTANCE: 'cli-tester' };

test('subscribers see every event appended by racing CLI processes: once each, in order, no gap', async () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const s = await startServer(home);
  try {
    const id = 'race';
    assert.equal(baton(['session', 'new', 'Race', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
    for (let i = 0; i < 5; i++) assert.equal(baton(['session', 'append', id, '--text', `before ${i}`], { home, env: CLI }).code, 0);
    const a = await wsClient(s, 'sub-a');
    const b = await stdioClient(home, 'sub-b');
    const got: Record<string, number[]> = { a: [], b: [], live: [] };
    a.onEvent((n) => got.a.push(n.event.seq));
    b.onEvent((n) => got.b.push(n.event.seq));
    // a: from the start (replays 7 events first); b: only what comes next.
    await a.eventSubscribe({ threadId: id, after: 0 });
    const bs = await b.eventSubscribe({ threadId: id });
    assert.equal(bs.after, 7);
    // Four CLI processes race each other; a late subscriber joins mid-race with an after in
    // the past: its gap is filled before live events.
    const writers = Array.from({ length: 4 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 15; i++) {
          const r = await batonAsync(['session', 'append', id, '--text', `w${w} #${i}`], { home, env: CLI });
          assert.equal(r.code, 0, r.stderr);
        }
      })(),
    );
    // Let the race start before the late subscriber joins (not a timing assertion: any moment works).
    await new Promise((r) => setTimeout(r, 200));
    const late = await wsClient(s, 'sub-late');
    late.onEvent((n) => got.live.push(n.event.seq));
    await late.eventSubscribe({ threadId: id, after: 3 });
    await Promise.all(writers);
    const total = 7 + 60;
    await until(() => got.a.length >= total && got.b.length >= total - 7 && got.live.length >= total - 3, 'every subscriber to catch up');
    const log = readJsonl(join(home, 'sessions', id, 'events.jsonl')).map((e) => e.seq);
    assert.equal(log.length, total);
    assert.deepEqual(got.a, log, 'subscriber a: everything, once, in order');
    assert.deepEqual(got.b, log.slice(7), 'subscriber b: everything after its start');
    assert.deepEqual(got.live, log.slice(3), 'the late subscriber: the gap, then live');
    a.close();
    b.close();
    late.close();
  } finally {
    await s.stop();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

test('events appended through another server reach this server subscribers', async () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const s1 = await startServer(home);
  const s2 = await startServer(home);
  try {
    const writer = await wsClient(s2, 'writer');
    const { thread } = await writer.threadStart({ title: 'Two servers', cwd: ws, id: 'two' });
    const reader = await wsClient(s1, 'reader');
    const seen: number[] = [];
    reader.onEvent((n) => seen.push(n.event.seq));
    await reader.eventSubscribe({ threadId: thread.id, after: 0 });
    for (let i = 0; i < 10; i++) await writer.contextAppend({ threadId: thread.id, text: `n${i}` });
    await until(() => seen.length >= 12, 'the events written through the other server');
    assert.deepEqual(
      seen,
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    writer.close();
    reader.close();
  } finally {
    await s1.stop();
    await s2.stop();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

test('the wire is plain JSON-RPC 2.0: json-rpc-2.0 JSONRPCClient drives `baton serve --stdio`', async () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const child = spawn(process.execPath, [BIN, 'serve', '--stdio'], { env: envFor(home), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const client = new JSONRPCClient((req) => {
    child.stdin.write(`${JSON.stringify(req)}\n`);
  });
  let buf = '';
  const stdoutLines: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      stdoutLines.push(line);
      client.receive(JSON.parse(line));
    }
  });
  try {
    const init = await client.request('initialize', { clientInfo: { name: 'third-party', version: '0' } });
    assert.equal(init.serverInfo.name, 'baton');
    client.notify('initialized', {});
    const started = await client.request('thread/start', { title: 'From elsewhere', cwd: ws, id: 'tp-1' });
    assert.equal(started.thread.lease.holder.instance_id.split('@')[0], 'api');
    const appended = await client.request('context/append', { threadId: 'tp-1', text: 'plain JSON-RPC' });
    assert.equal(appended.event.seq, 3);
    const missing = await client.requestAdvanced({ jsonrpc: '2.0', id: 77, method: 'no/such' });
    assert.equal(missing.error?.code, -32601);
    const refused = await client.requestAdvanced({ jsonrpc: '2.0', id: 78, method: 'context/append', params: { threadId: 'nope', text: 'x' } });
    assert.equal(refused.error?.code, -32000);
    assert.equal(refused.error?.data.code, 'WS001');
    // Every stdout line is one JSON-RPC 2.0 message; logs went to stderr.
    for (const l of stdoutLines) assert.equal(JSON.parse(l).jsonrpc, '2.0');
    assert.match(stderr, /baton serve: serving JSON-RPC on stdio/);
    const log = readJsonl(join(home, 'sessions', 'tp-1', 'events.jsonl'));
    assert.deepEqual(log[2].payload, { text: 'plain JSON-RPC' });
  } finally {
    child.stdin.end();
    await new Promise((r) => child.on('close', r));
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

test('the committed protocol schemas and generated client are what gen-schemas writes (npm run schemas)', async () => {
  const { renderClientTypes, renderProtocolSchemas } = await import('../src/schemas/protocol-render.ts');
  const { METHODS } = await import('../src/schemas/protocol.ts');
  const want = renderProtocolSchemas();
  const dir = join(ROOT, 'schemas', 'protocol');
  assert.deepEqual(fs.readdirSync(dir).sort(), Object.keys(want).sort(), 'one file per method params/result and notification, no stale file');
  for (const [name, text] of Object.entries(want)) assert.equal(fs.readFileSync(join(dir, name), 'utf8'), text, `schemas/protocol/${name} is stale: run npm run schemas`);
  assert.equal(fs.readFileSync(join(ROOT, 'src', 'client', 'protocol.gen.ts'), 'utf8'), renderClientTypes(), 'src/client/protocol.gen.ts is stale: run npm run schemas');
  // Every method has a typed client method.
  const gen = fs.readFileSync(join(ROOT, 'src', 'client', 'protocol.gen.ts'), 'utf8');
  for (const m of Object.keys(METHODS)) assert.ok(gen.includes(`this.request(${JSON.stringify(m)}`) || gen.includes(`this.request('${m}'`), m);
});
