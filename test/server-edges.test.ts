// The app server's edges from an adversarial trial (issue 28): a batch is bounded (elements
// and the bytes of its answers together, server.md's 1 MiB a response) and never takes the
// server down; a malformed percent-escape is a 400, not a 500; a relative cwd or
// workspacePath is refused (USAGE), never resolved against the server's own directory.
// Every refusal leaves the store's bytes as they were.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { type RunningServer, rawOver, startServer, wsClient } from './server-helpers.ts';

const CLI = { BATON_INSTANCE: 'cli-tester' };
const storeHash = (home: string): string => treeHash(join(home, 'sessions'), (n) => n === '.verified' || n.startsWith('.mutex'));

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let home: string;
let ws: string;
let s: RunningServer;

before(async () => {
  home = tmpDir();
  ws = tmpDir('baton-ws-');
  assert.equal(baton(['session', 'new', 'Big events', '--id', 'big-1', '--cwd', ws], { home, env: CLI }).code, 0);
  // Five events of ~100 KB: one replay page holds them all (~500 KB).
  for (let i = 0; i < 5; i++) {
    const text = `chunk ${i} ${'lorem ipsum dolor sit amet '.repeat(3800)}`;
    const r = baton(['session', 'append', 'big-1', '--text', text], { home, env: CLI });
    assert.equal(r.code, 0, r.stderr);
  }
  s = await startServer(home);
});

after(async () => {
  if (s) await s.stop();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(ws, { recursive: true, force: true });
});

test('a batch of many event/replay calls is answered within 1 MiB altogether; the server stays up', async () => {
  const c = await wsClient(s);
  try {
    const before = storeHash(home);
    const raw = rawOver(c);
    const batch = Array.from({ length: 40 }, (_, i) => ({ jsonrpc: '2.0', id: `r${i}`, method: 'event/replay', params: { threadId: 'big-1', after: 0 } }));
    let bytes = 0;
    c.transport.onMessage((t) => {
      if (t.startsWith('[')) bytes = Buffer.byteLength(t);
    });
    raw.send(JSON.stringify(batch));
    const answer = await raw.next();
    assert.ok(Array.isArray(answer), 'a batch is answered with an array');
    assert.equal(answer.length, 40, 'every call of the batch is answered');
    assert.ok(bytes <= 1024 * 1024 + 64 * 1024, `the batch's answer is ${bytes} bytes`);
    assert.deepEqual(
      answer.map((a: any) => a.id),
      batch.map((b) => b.id),
      'in order',
    );
    assert.ok(answer[0].result.events.length >= 5, 'the first call is answered in full');
    const refused = answer.filter((a: any) => a.error);
    assert.ok(refused.length > 0);
    for (const a of refused) {
      assert.equal(a.error.code, -32000);
      assert.equal(a.error.data.code, 'BATCH_REPLY_TOO_LARGE');
      assert.equal(typeof a.error.data.details.ran, 'boolean');
    }
    // The connection and the server go on.
    const seqs = answer[0].result.events.map((e: any) => e.seq);
    const r = await c.eventReplay({ threadId: 'big-1', after: seqs[seqs.length - 2] });
    assert.deepEqual(
      r.events.map((e) => e.seq),
      [seqs[seqs.length - 1]],
    );
    assert.equal(s.proc.exitCode, null, 'the server is still running');
    assert.equal((await get(s.port, '/healthz', { authorization: `Bearer ${s.token}` })).status, 200);
    assert.equal(storeHash(home), before, 'the store did not change');
  } finally {
    c.close();
  }
});

test('a batch of more than 100 elements is refused whole with BATCH_TOO_LARGE, nothing run', async () => {
  const c = await wsClient(s);
  try {
    const before = storeHash(home);
    const raw = rawOver(c);
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: `a${i}`, method: 'context/append', params: { threadId: 'big-1', text: `never ${i}` } }));
    raw.send(JSON.stringify(batch));
    const answer = await raw.next();
    assert.equal(answer.error.code, -32600);
    assert.equal(answer.error.data.code, 'BATCH_TOO_LARGE');
    assert.equal(answer.error.data.limit, 100);
    assert.equal(storeHash(home), before, 'nothing was appended');
    assert.equal(baton(['session', 'log', 'big-1', '--json'], { home }).stdout.includes('never 0'), false);
  } finally {
    c.close();
  }
});

test('a malformed percent-escape in the path is a 400, not a 500', async () => {
  const before = storeHash(home);
  for (const path of ['/%E0%A4%A', '/assets/%E0%A4%A', '/%']) {
    const r = await get(s.port, path, { authorization: `Bearer ${s.token}` });
    assert.equal(r.status, 400, `${path}: ${r.body}`);
  }
  assert.equal(s.proc.exitCode, null);
  assert.equal(storeHash(home), before);
});

test('thread/start with a relative cwd and thread/resume with a relative workspacePath are refused (USAGE)', async () => {
  const c = await wsClient(s);
  try {
    const before = storeHash(home);
    const sessions = fs.readdirSync(join(home, 'sessions')).sort();
    await assert.rejects(c.threadStart({ title: 'relative', cwd: '.' }), (e: any) => {
      assert.equal(e.batonCode, 'USAGE');
      assert.match(e.message, /not absolute/);
      return true;
    });
    await assert.rejects(c.threadStart({ title: 'relative', cwd: 'some/dir' }), (e: any) => e.batonCode === 'USAGE');
    await assert.rejects(c.threadResume({ threadId: 'big-1', workspacePath: '..' }), (e: any) => e.batonCode === 'USAGE' && /not absolute/.test(e.message));
    await assert.rejects(c.threadList({ cwd: 'rel' }), (e: any) => e.batonCode === 'USAGE');
    assert.deepEqual(fs.readdirSync(join(home, 'sessions')).sort(), sessions, 'no session was made');
    assert.equal(storeHash(home), before);
    // An absolute cwd still works.
    const r = await c.threadStart({ title: 'absolute', cwd: ws });
    assert.equal(r.thread.manifest.workspace?.cwd, ws);
  } finally {
    c.close();
  }
});

test('`baton help serve|mcp` and `baton serve|mcp --help` print one text, naming the XDG fallback of the home', () => {
  for (const cmd of ['serve', 'mcp']) {
    const a = baton(['help', cmd], { home });
    const b = baton([cmd, '--help'], { home });
    assert.equal(a.code, 0);
    assert.equal(b.code, 0);
    assert.equal(a.stdout, b.stdout, cmd);
    assert.match(b.stdout, /\$BATON_HOME, else \$XDG_STATE_HOME\/baton, else ~\/\.local\/state\/baton/);
  }
  assert.match(baton(['serve', '--help'], { home }).stdout, /POST \/mcp/);
});
