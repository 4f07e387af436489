// Which session an MCP call means when it names none (mcp.md): BATON_SESSION, else the
// session whose episode the agent's hooks opened in the server's directory; over HTTP a
// call names it. And the door of POST /mcp: the server's token, POST only.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir } from './helpers.ts';
import { httpMcp, ok, refused, stdioMcp } from './mcp-helpers.ts';
import { startServer } from './server-helpers.ts';

const PROVIDER_SID = 'c0ffee00-1111-4222-8333-444455556666';

test("with no session named, stdio uses BATON_SESSION, else the session the agent's hooks opened here, else refuses USAGE", async () => {
  const home = tmpDir('baton-mcp-');
  const project = tmpDir('baton-proj-');
  const elsewhere = tmpDir('baton-else-');
  assert.equal(baton(['session', 'new', 'Named', '--id', 'named'], { home }).code, 0);
  // The agent's start hook opens an episode of its session in the project.
  const start = baton(['hook', 'claude'], { home, cwd: project, input: JSON.stringify({ session_id: PROVIDER_SID, cwd: project, hook_event_name: 'SessionStart', source: 'startup' }) });
  assert.equal(start.code, 0, start.stderr);

  const byEnv = await stdioMcp(home, { cwd: project, env: { BATON_SESSION: 'named' } });
  try {
    const p = await ok(byEnv, 'pointer_get');
    assert.equal(p.session_id, 'named');
    assert.equal(p.session_from, 'BATON_SESSION');
  } finally {
    await byEnv.close();
  }

  const byEpisode = await stdioMcp(home, { cwd: project });
  try {
    const p = await ok(byEpisode, 'pointer_get');
    assert.equal(p.session_id, PROVIDER_SID);
    assert.equal(p.session_from, 'episode');
    const r = await ok(byEpisode, 'pointer_publish', { expected_generation: p.generation, expected_revision: p.revision, task_id: '6f1c2b9e-3a4d-4e5f-8a6b-7c8d9e0f1a2b', pointer_text: 'Goal: g\nNext: n' });
    assert.equal(r.session_id, PROVIDER_SID);
    const state = JSON.parse(fs.readFileSync(join(home, 'sessions', PROVIDER_SID, 'state.json'), 'utf8'));
    assert.equal(state.revision, r.revision);
  } finally {
    await byEpisode.close();
  }

  const nowhere = await stdioMcp(home, { cwd: elsewhere });
  try {
    const r = await refused(nowhere, 'pointer_get', {}, 'USAGE');
    assert.match(r.message, /pass `session`/);
  } finally {
    await nowhere.close();
  }
});

test('POST /mcp needs the token, answers POST only, and a call over HTTP names its session', async () => {
  const home = tmpDir('baton-mcp-');
  assert.equal(baton(['session', 'new', 'Named', '--id', 'named'], { home }).code, 0);
  const s = await startServer(home, [], { BATON_SESSION: 'named' });
  try {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const noToken = await fetch(`http://127.0.0.1:${s.port}/mcp`, { method: 'POST', headers, body: init });
    assert.equal(noToken.status, 401);
    const wrong = await fetch(`http://127.0.0.1:${s.port}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${'0'.repeat(64)}` }, body: init });
    assert.equal(wrong.status, 401);
    const get = await fetch(`http://127.0.0.1:${s.port}/mcp`, { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(get.status, 405);
    const c = await httpMcp(s);
    try {
      // The serving process's BATON_SESSION is not an agent's: an HTTP call names its session.
      await refused(c, 'pointer_get', {}, 'USAGE');
      assert.equal((await ok(c, 'pointer_get', { session: 'named' })).session_id, 'named');
    } finally {
      await c.close();
    }
  } finally {
    await s.stop();
  }
});

test('the session whose episode is open here is found by its log while it has no manifest.json (ADR 0082)', async () => {
  const home = tmpDir('baton-mcp-');
  const project = tmpDir('baton-proj-');
  const start = baton(['hook', 'claude'], { home, cwd: project, input: JSON.stringify({ session_id: PROVIDER_SID, cwd: project, hook_event_name: 'SessionStart', source: 'startup' }) });
  assert.equal(start.code, 0, start.stderr);
  // As a session history import made has none until its first reader or append.
  fs.rmSync(join(home, 'sessions', PROVIDER_SID, 'manifest.json'));
  const mcp = await stdioMcp(home, { cwd: project });
  try {
    const p = await ok(mcp, 'pointer_get');
    assert.equal(p.session_id, PROVIDER_SID);
    assert.equal(p.session_from, 'episode');
  } finally {
    await mcp.close();
  }
});
