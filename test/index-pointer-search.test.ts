// The published pointer's text is searchable (issue 29.4, src/index/pointer-text.ts): the
// real `baton` in a temp home publishes a pointer, and `baton search` (the lean entry and the
// full command line), MCP's `search` and an index rebuilt from scratch find a word that is only
// in the pointer; a newer pointer's words replace the old ones, a cleared pointer has none.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { ok, stdioMcp } from './mcp-helpers.ts';

const TASK = '3f1c9a52-8d3b-4e2a-9c1d-2b7e5f6a8c90';
const FULL = { BATON_SEARCH_LEAN: '0' };

function publish(home: string, req: Record<string, unknown>): { generation: string; revision: number } {
  const r = baton(['pointer', 'publish'], { home, input: JSON.stringify({ schema_version: 3, session_id: 'ptr', task_id: TASK, target_status: 'CLEAN', ...req }) });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function search(home: string, word: string, env: Record<string, string> = {}): any[] {
  const r = baton(['search', word, '--all', '--json'], { home, env });
  assert.equal(r.code, 0, r.stderr);
  return r.json.hits;
}

test('a word only in the published pointer is found by search, MCP and a rebuilt index; a newer pointer replaces it, a cleared one has none', async () => {
  const home = tmpDir();
  for (const args of [
    ['session', 'new', 'pointer search', '--id', 'ptr'],
    ['session', 'new', 'another', '--id', 'other'],
  ]) {
    assert.equal(baton(args, { home }).code, 0);
  }
  assert.deepEqual(search(home, 'zephyrquill'), []); // an index exists before the publish: the catch-up indexes it
  const first = publish(home, { expected_generation: 'ABSENT', expected_revision: 0, pointer_text: 'Goal: zephyrquill the uploader\nNext: retries' });
  const state = JSON.parse(fs.readFileSync(join(home, 'sessions', 'ptr', 'state.json'), 'utf8'));

  const hits = search(home, 'zephyrquill');
  assert.equal(hits.length, 1);
  assert.equal(hits[0].session, 'ptr');
  assert.equal(hits[0].type, 'pointer.published');
  assert.equal(hits[0].at, state.updated_at);
  assert.match(hits[0].snippet, /\*\*zephyrquill\*\*/);
  assert.deepEqual(search(home, 'zephyrquill', FULL), hits);
  const typed = baton(['search', 'zephyrquill', '--all', '--type', 'pointer.published', '--json'], { home });
  assert.deepEqual(typed.json.hits, hits);
  assert.deepEqual(baton(['search', 'zephyrquill', '--all', '--role', 'user', '--json'], { home }).json.hits, [], 'an item filter leaves the pointer out');

  const mcp = await stdioMcp(home);
  try {
    const found = await ok(mcp, 'search', { query: 'zephyrquill' });
    assert.equal(found.hits.length, 1);
    assert.equal(found.hits[0].session, 'ptr');
    assert.equal(found.hits[0].type, 'pointer.published');
  } finally {
    await mcp.close();
  }

  // From scratch: the same hit (the pointer is read from state.json, not from the log).
  fs.rmSync(join(home, 'baton.db'));
  const sessions = treeHash(join(home, 'sessions'));
  assert.equal(baton(['index', 'rebuild', '--json'], { home }).code, 0);
  assert.deepEqual(search(home, 'zephyrquill'), hits);
  assert.equal(treeHash(join(home, 'sessions')), sessions, 'the index never writes a session folder');

  // A newer pointer: its words, not the old ones.
  const second = publish(home, { expected_generation: first.generation, expected_revision: first.revision, pointer_text: 'Goal: quillnext the downloader' });
  assert.deepEqual(search(home, 'zephyrquill'), []);
  assert.deepEqual(
    search(home, 'quillnext').map((h) => h.session),
    ['ptr'],
  );
  // Cleared: nothing of it is found.
  publish(home, { expected_generation: second.generation, expected_revision: second.revision, target_status: 'CLEARED', task_id: null, pointer_text: null });
  assert.deepEqual(search(home, 'quillnext'), []);
  assert.deepEqual(search(home, 'quillnext', FULL), []);
  fs.rmSync(join(home, 'baton.db'));
  assert.deepEqual(search(home, 'quillnext'), []);
});

test('without an index (the plain scan) the pointer is searched too', () => {
  const home = tmpDir();
  assert.equal(baton(['session', 'new', 'pointer search', '--id', 'ptr'], { home }).code, 0);
  publish(home, { expected_generation: 'ABSENT', expected_revision: 0, pointer_text: 'Goal: zephyrquill the uploader' });
  // A folder where baton.db should be: no index can be had, search scans the logs.
  fs.mkdirSync(join(home, 'baton.db'));
  const r = baton(['search', 'zephyrquill', '--all', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.source, 'scan');
  assert.deepEqual(
    r.json.hits.map((h: { session: string; type: string }) => [h.session, h.type]),
    [['ptr', 'pointer.published']],
  );
});
