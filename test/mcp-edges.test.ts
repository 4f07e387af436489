// The MCP server's edges (issue 28): one stdio message over the 4 MiB bound is dropped with
// INPUT_TOO_LARGE on stderr (and an error to its id) and `baton mcp` keeps serving; and
// pointer_publish takes pointer.md's publish request verbatim, schema_version and session_id
// included (session_id must name the session the call names). The SDK's own client against
// the real `bin/baton.cjs mcp`; every refusal leaves the store's bytes as they were.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { ok, refused } from './mcp-helpers.ts';
import { envFor, until } from './server-helpers.ts';
import { BIN } from './helpers.ts';

const CLI = { BATON_INSTANCE: 'cli-tester' };
const sessionsHash = (home: string): string => treeHash(join(home, 'sessions'), (n) => n === '.verified' || n.startsWith('.mutex'));

let home: string;
let c: Client;
let transport: StdioClientTransport;
let stderr = '';

before(async () => {
  home = tmpDir('baton-mcp-');
  for (const args of [
    ['session', 'new', 'Alpha work', '--id', 'alpha'],
    ['session', 'release', 'alpha'],
    ['session', 'new', 'Beta work', '--id', 'beta'],
  ]) {
    const r = baton(args, { home, env: CLI });
    assert.equal(r.code, 0, r.stderr);
  }
  const { Client: McpClient } = await import('@modelcontextprotocol/client');
  c = new McpClient({ name: 'mcp-edges', version: '1' });
  transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: envFor(home), stderr: 'pipe' });
  (transport.stderr as NodeJS.ReadableStream | null)?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await c.connect(transport);
});

after(async () => {
  await c?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

test('a stdio message over 4 MiB is dropped with INPUT_TOO_LARGE on stderr; the server keeps serving', async () => {
  const before = sessionsHash(home);
  const pid = transport.pid;
  assert.ok(pid);
  // A notification of ~11 MB (over the SDK's own 10 MB buffer too): no id, so only stderr hears of it.
  await transport.send({ jsonrpc: '2.0', method: 'notifications/padding', params: { pad: 'x'.repeat(11 * 1024 * 1024) } } as never);
  await until(() => stderr.includes('INPUT_TOO_LARGE'), 'the INPUT_TOO_LARGE line');
  assert.match(stderr, /baton mcp: INPUT_TOO_LARGE a message of \d+ bytes or more on stdin \(limit 4194304\)/);
  // A request of 5 MB: its id gets an error at once (the client's call fails, it does not hang).
  await assert.rejects(c.callTool({ name: 'context_append', arguments: { session: 'alpha', text: 'y'.repeat(5 * 1024 * 1024) } }), /INPUT_TOO_LARGE/);
  // Still serving, the same process.
  const list = await ok(c, 'session_list', {});
  assert.ok(JSON.stringify(list).includes('alpha'));
  assert.equal(transport.pid, pid);
  assert.equal(sessionsHash(home), before, 'nothing was written');
});

test("pointer_publish takes pointer.md's request verbatim (schema_version, session_id) and the pointer changes on disk", async () => {
  const cur = await ok(c, 'pointer_get', { session: 'alpha' });
  const request = {
    schema_version: 3,
    session_id: 'alpha',
    expected_generation: cur.generation,
    expected_revision: cur.revision,
    task_id: randomUUID(),
    target_status: 'CLEAN',
    pointer_text: 'Goal: accept the request\nNext: verify on disk',
  };
  const receipt = await ok(c, 'pointer_publish', request);
  assert.equal(receipt.ok, true);
  assert.equal(receipt.session_id, 'alpha');
  const state = JSON.parse(fs.readFileSync(join(home, 'sessions', 'alpha', 'state.json'), 'utf8'));
  assert.equal(state.pointer_text, request.pointer_text);
  assert.equal(state.revision, receipt.revision);
  // With session too, naming the same session: accepted.
  const again = await ok(c, 'pointer_publish', { ...request, session: 'alpha', expected_generation: receipt.generation, expected_revision: receipt.revision, pointer_text: 'Goal: again' });
  assert.equal(again.revision, receipt.revision + 1);
});

test('pointer_publish refuses a session_id that is not the session named, and a schema_version other than 3; nothing written', async () => {
  const cur = await ok(c, 'pointer_get', { session: 'alpha' });
  const base = { expected_generation: cur.generation, expected_revision: cur.revision, task_id: randomUUID(), target_status: 'CLEAN', pointer_text: 'Goal: never' };
  const before = sessionsHash(home);
  const r = await refused(c, 'pointer_publish', { ...base, session: 'alpha', session_id: 'beta' }, 'INVALID_REQUEST');
  assert.equal(r.details.detail, 'INVALID_FIELD:session_id');
  await refused(c, 'pointer_publish', { ...base, session: 'alpha', session_id: 'alph' }, 'INVALID_REQUEST');
  const v = await refused(c, 'pointer_publish', { ...base, schema_version: 2, session_id: 'alpha' }, 'INVALID_REQUEST');
  assert.match(JSON.stringify(v), /schema_version/);
  assert.equal(sessionsHash(home), before);
});
