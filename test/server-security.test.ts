// The app server's refusals at the door (server.md, Transports): the token (0600, 401
// without it; never a cookie, docs/adr/0050), the Origin check on the WebSocket upgrade,
// loopback unless --allow-remote, the 4 MiB message limit (an error, the connection stays
// usable), backpressure, a client that leaves mid-subscription, server.json and SIGTERM.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { BIN, baton, tmpDir } from './helpers.ts';
import { type RunningServer, envFor, rawOver, startServer, stdioClient, until, wsClient } from './server-helpers.ts';

const CLI = { BATON_INSTANCE: 'cli-tester' };

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a raw WebSocket; resolves 'open' or the HTTP status the upgrade was refused with. */
function upgrade(url: string, headers: Record<string, string> = {}, protocols: string[] = []): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => {});
  });
}

let home: string;
let ws: string;
let s: RunningServer;

before(async () => {
  home = tmpDir();
  ws = tmpDir('baton-ws-');
  assert.equal(baton(['session', 'new', 'Secured', '--id', 'sec-1', '--cwd', ws], { home, env: CLI }).code, 0);
  s = await startServer(home);
});

after(async () => {
  if (s) await s.stop();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(ws, { recursive: true, force: true });
});

test('the token file is 0600, made on first start, kept on the next, replaced by --new-token', async () => {
  const path = join(home, 'server.token');
  assert.equal(fs.statSync(path).mode & 0o777, 0o600);
  assert.match(s.token, /^[0-9a-f]{64}$/);
  const second = await startServer(home);
  try {
    assert.equal(second.token, s.token, 'a second server on the same home keeps the token');
  } finally {
    await second.stop();
  }
  const home2 = tmpDir();
  try {
    const a = await startServer(home2);
    await a.stop();
    const b = await startServer(home2, ['--new-token']);
    await b.stop();
    assert.notEqual(a.token, b.token);
    assert.equal(fs.statSync(join(home2, 'server.token')).mode & 0o777, 0o600);
  } finally {
    fs.rmSync(home2, { recursive: true, force: true });
  }
});

test('every HTTP request and upgrade without the token is 401 and reads nothing (the page\'s own files excepted)', async () => {
  for (const path of ['/healthz', '/mcp', '/rpc', '/anything', '/artifacts/sec-1/', '/contexts/sec-1/x']) {
    const r = await get(s.port, path);
    assert.equal(r.status, 401, path);
    assert.doesNotMatch(r.body, /Secured|sec-1/);
  }
  // The page itself is the built code, no store content: served without the token.
  const page = await get(s.port, '/');
  assert.equal(page.status, 200);
  assert.doesNotMatch(page.body, /Secured|sec-1/);
  assert.equal((await get(s.port, '/healthz', { authorization: 'Bearer wrong' })).status, 401);
  assert.equal((await get(s.port, '/healthz', { cookie: `baton_token=${s.token}` })).status, 401, 'a cookie is not a token');
  assert.equal(await upgrade(s.wsUrl), 401);
  assert.equal(await upgrade(`${s.wsUrl}?token=wrong`), 401);
  assert.equal(await upgrade(s.wsUrl, { cookie: `baton_token=${s.token}` }), 401);
  assert.equal(await upgrade(s.wsUrl, { authorization: `Bearer ${s.token}` }), 'open');
  assert.equal(await upgrade(s.wsUrl, {}, ['baton', `baton.token.${s.token}`]), 'open');
  assert.equal(await upgrade(s.wsUrl, {}, ['baton', 'baton.token.wrong']), 401);
});

test('Bearer works; ?token= serves the page with no cookie (it clears an old one) and no referrer', async () => {
  const ok = await get(s.port, '/healthz', { authorization: `Bearer ${s.token}` });
  assert.equal(ok.status, 200);
  assert.equal(JSON.parse(ok.body).ok, true);
  const q = await get(s.port, `/?token=${s.token}&x=1`);
  assert.equal(q.status, 200);
  assert.match(q.body, /<div id="root"><\/div>/, 'the built web page (dist/web/index.html)');
  const cookie = String((q.headers['set-cookie'] as string[])[0]);
  assert.match(cookie, /^baton_token=; Max-Age=0/, 'the cookie of an earlier version is cleared');
  assert.doesNotMatch(cookie, new RegExp(s.token));
  assert.equal(q.headers['referrer-policy'], 'no-referrer');
  // POST /mcp is the MCP surface's (docs/mcp.md, test/mcp-session.test.ts): behind the same token.
  assert.equal((await get(s.port, '/mcp', {}, 'POST')).status, 401);
});

test('--open prints the URL with the token, which opens the page; without a desktop it says so', async () => {
  const r = await startServer(home, ['--open'], { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, BROWSER: undefined });
  try {
    await until(() => r.stdout().includes('?token='), 'the URL on stdout');
    await until(() => /--open: no desktop here/.test(r.stderr()), 'the no-desktop line');
    const url = new URL(r.stdout().trim());
    assert.equal(url.searchParams.get('token'), r.token);
    const q = await get(r.port, `${url.pathname}${url.search}`);
    assert.equal(q.status, 200);
    assert.doesNotMatch(String(q.headers['set-cookie'] ?? ''), new RegExp(r.token));
  } finally {
    await r.stop();
  }
});

test('--open runs the browser where one is there (BROWSER names it) with the URL and its token', async () => {
  const dir = tmpDir('baton-open-');
  const seen = join(dir, 'opened.txt');
  const browser = join(dir, 'browser.sh');
  fs.writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(seen)}\n`, { mode: 0o700 });
  const r = await startServer(home, ['--open'], { BROWSER: browser });
  try {
    await until(() => fs.existsSync(seen) && fs.readFileSync(seen, 'utf8').length > 0, 'the browser was run');
    const url = new URL(fs.readFileSync(seen, 'utf8'));
    assert.equal(url.searchParams.get('token'), r.token);
    assert.equal(url.port, String(r.port));
    assert.equal(url.hostname, '127.0.0.1');
  } finally {
    await r.stop();
  }
});

test('the upgrade checks Origin: the server own origin or none', async () => {
  const auth = { authorization: `Bearer ${s.token}` };
  assert.equal(await upgrade(s.wsUrl, { ...auth, origin: 'http://evil.example' }), 403);
  assert.equal(await upgrade(s.wsUrl, { ...auth, origin: `http://127.0.0.1:${s.port + 1}` }), 403);
  assert.equal(await upgrade(s.wsUrl, { ...auth, origin: `http://127.0.0.1:${s.port}` }), 'open');
  assert.equal(await upgrade(s.wsUrl, { ...auth, origin: `http://localhost:${s.port}` }), 'open');
  assert.equal(await upgrade(s.wsUrl, auth), 'open');
});

test('a non-loopback bind is refused without --allow-remote, before anything is written', () => {
  const home2 = tmpDir();
  try {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--port', '0'], { env: envFor(home2), encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^baton: USAGE .*--allow-remote/m);
    assert.deepEqual(fs.readdirSync(home2), [], 'no token, no server.json');
    const bad = spawnSync(process.execPath, [BIN, 'serve', '--port', 'eighty'], { env: envFor(home2), encoding: 'utf8', timeout: 30_000 });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^baton: USAGE --port/m);
  } finally {
    fs.rmSync(home2, { recursive: true, force: true });
  }
});

test('--allow-remote binds and prints who can reach it', async () => {
  const home2 = tmpDir();
  try {
    const r = await startServer(home2, ['--host', '0.0.0.0', '--allow-remote']);
    try {
      await until(() => r.stderr().includes('--allow-remote: anyone'), 'the reach line');
      assert.match(r.stderr(), /--allow-remote: anyone who can reach .* on port \d+ and holds the token/);
    } finally {
      await r.stop();
    }
  } finally {
    fs.rmSync(home2, { recursive: true, force: true });
  }
});

test('a message over 4 MiB is answered with an error and the connection stays usable (WebSocket and stdio)', async () => {
  const big = JSON.stringify({ jsonrpc: '2.0', id: 100001, method: 'context/append', params: { threadId: 'sec-1', text: 'x'.repeat(4 * 1024 * 1024 + 10) } });
  const wc = await wsClient(s);
  const sc = await stdioClient(home);
  try {
    for (const c of [wc, sc]) {
      const raw = rawOver(c);
      raw.send(big);
      const err = await raw.next();
      assert.equal(err.error.code, -32600);
      assert.match(err.error.message, /too large/);
      const r = await c.threadRead({ threadId: 'sec-1' });
      assert.equal(r.thread.id, 'sec-1', 'the same connection still answers');
    }
    const lines = fs.readFileSync(join(home, 'sessions', 'sec-1', 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 2, 'nothing was appended');
  } finally {
    wc.close();
    sc.close();
  }
});

test('a client that sends faster than it reads is paused: the server does not buffer its answers without bound', async () => {
  // A session of ~3 MiB, and 150 requests for 1 MiB pages that the client never reads.
  const id = 'bulk';
  assert.equal(baton(['session', 'new', 'Bulk', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
  const text = 'z'.repeat(200_000);
  for (let i = 0; i < 15; i++) assert.equal(baton(['session', 'append', id, '--stdin'], { home, env: CLI, input: `${i} ${text}` }).code, 0);
  const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const sock = new WebSocket(s.wsUrl, { headers: { authorization: `Bearer ${s.token}` } });
  await new Promise((r) => sock.on('open', r));
  sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'flood', version: '1' } } }));
  sock.send(JSON.stringify({ jsonrpc: '2.0', method: 'initialized' }));
  await new Promise((r) => sock.once('message', r));
  // Stop reading: the kernel buffers fill, then the server's socket buffer grows until it pauses us.
  (sock as unknown as { _socket: { pause(): void } })._socket.pause();
  const base = rss();
  for (let i = 0; i < 150; i++) sock.send(JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'event/replay', params: { threadId: id, after: 0 } }));
  await new Promise((r) => setTimeout(r, 3000));
  const grown = rss() - base;
  // Unbounded, 150 answers of ~1 MiB would be ~150 MiB; paused, a few pages.
  assert.ok(grown < 64 * 1024 * 1024, `server RSS grew ${Math.round(grown / 1048576)} MiB`);
  sock.terminate();
  // And the server is healthy for everyone else.
  const c = await wsClient(s);
  try {
    assert.equal((await c.threadRead({ threadId: id })).thread.id, id);
  } finally {
    c.close();
  }
});

test('a client that disconnects mid-subscription and mid-replay leaves the server healthy', async () => {
  const c = await wsClient(s);
  await c.eventSubscribe({ threadId: 'bulk', after: 0 });
  void c.eventReplay({ threadId: 'bulk', after: 0 }).catch(() => {});
  c.transport.close();
  for (let i = 0; i < 3; i++) assert.equal(baton(['session', 'append', 'bulk', '--text', `after ${i}`], { home, env: CLI }).code, 0);
  const d = await wsClient(s, 'next');
  try {
    const seen: number[] = [];
    d.onEvent((n) => seen.push(n.event.seq));
    await d.eventSubscribe({ threadId: 'bulk', after: 17 });
    await until(() => seen.length >= 3, 'the events after the disconnect');
    assert.deepEqual(seen, [18, 19, 20]);
  } finally {
    d.close();
  }
  assert.equal((await get(s.port, '/healthz', { authorization: `Bearer ${s.token}` })).status, 200);
});

test('server.json names the running server; SIGTERM shuts down cleanly and removes it', async () => {
  const home2 = tmpDir();
  try {
    const r = await startServer(home2);
    const info = JSON.parse(fs.readFileSync(join(home2, 'server.json'), 'utf8'));
    assert.equal(info.pid, r.proc.pid);
    assert.equal(info.port, r.port);
    const st = baton(['status', '--json'], { home: home2 });
    assert.equal(st.json.server.pid, r.proc.pid, 'baton status names the running server');
    assert.equal(st.json.server.running, true);
    const c = await wsClient(r);
    assert.equal(await r.stop(), 0);
    assert.equal(fs.existsSync(join(home2, 'server.json')), false);
    assert.equal(baton(['status', '--json'], { home: home2 }).json.server, null);
    await until(() => c.closed !== null, 'the client to see the close');
  } finally {
    fs.rmSync(home2, { recursive: true, force: true });
  }
});
