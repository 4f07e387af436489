// A lease `baton serve` handed out (the web page's) lives no longer than the server: once it
// is gone the terminal takes the session back (issue 29.2), and every WS101 names the command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { startServer, wsClient } from './server-helpers.ts';

const CLI = { BATON_INSTANCE: 'cli@tester@host' };

test('a web lease of a server that stopped: append names resume, resume takes it back (lock.released expired), nothing written by a refusal', async () => {
  const home = tmpDir();
  const id = 'browser-held';
  assert.equal(baton(['session', 'new', 'Held in the browser', '--id', id], { home, env: CLI }).code, 0);
  assert.equal(baton(['session', 'release', id], { home, env: CLI }).code, 0);
  const server = await startServer(home);
  try {
    const page = await wsClient(server, 'baton-web', 'web');
    await page.request('thread/resume', { threadId: id });
    page.close();
    // While the server runs, its lease holds: WS101 names the command for when it ends.
    const before = treeHash(home);
    const live = baton(['session', 'append', id, '--text', 'from the terminal', '--json'], { home, env: CLI });
    assert.equal(live.code, 2);
    assert.equal(live.json.error.code, 'WS101');
    assert.equal(live.json.error.command, `baton session resume ${id} --steal`);
    assert.equal(baton(['session', 'resume', id, '--steal'], { home, env: CLI }).json?.error?.code ?? 'WS101', 'WS101');
    assert.equal(treeHash(home), before);
  } finally {
    await server.stop();
  }
  const before = treeHash(home);
  const append = baton(['session', 'append', id, '--text', 'from the terminal', '--json'], { home, env: CLI });
  assert.equal(append.code, 2);
  assert.equal(append.json.error.code, 'WS101');
  assert.equal(append.json.error.command, `baton session resume ${id}`);
  assert.match(append.stderr, /no longer running: take it back with baton session resume browser-held/);
  assert.equal(treeHash(home), before, 'a refusal writes nothing');
  const resume = baton(['session', 'resume', id], { home, env: CLI });
  assert.equal(resume.code, 0, resume.stderr);
  const events = baton(['session', 'log', id, '--json'], { home, env: CLI }).json.events;
  const released = events.filter((e: any) => e.type === 'lock.released').at(-1);
  assert.equal(released.payload.reason, 'expired');
  assert.equal(released.payload.holder.surface, 'web');
  assert.equal(events.at(-2).type, 'lock.acquired');
  assert.equal(events.at(-2).payload.holder.instance_id, CLI.BATON_INSTANCE);
  assert.equal(baton(['session', 'append', id, '--text', 'mine again'], { home, env: CLI }).code, 0);
});

test('session release by the terminal ends a lease whose server is gone (reason expired)', async () => {
  const home = tmpDir();
  const id = 'browser-release';
  assert.equal(baton(['session', 'new', 'Released from the terminal', '--id', id], { home, env: CLI }).code, 0);
  assert.equal(baton(['session', 'release', id], { home, env: CLI }).code, 0);
  const server = await startServer(home);
  try {
    const page = await wsClient(server, 'baton-web', 'web');
    await page.request('thread/resume', { threadId: id });
    page.close();
  } finally {
    await server.stop();
  }
  const r = baton(['session', 'release', id], { home, env: CLI });
  assert.equal(r.code, 0, r.stderr);
  const last = baton(['session', 'log', id, '--json', '--tail', '1'], { home, env: CLI }).json.events[0];
  assert.equal(last.type, 'lock.released');
  assert.equal(last.payload.reason, 'expired');
  const show = baton(['session', 'show', id, '--json'], { home });
  assert.equal(show.json.ok, true);
  assert.equal(show.json.lease, null);
});
