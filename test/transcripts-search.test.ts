// Black-box: a real Claude Code transcript (test/fixtures/transcripts/claude, written by the
// pinned program offline) captured by the real hook at turn end, then found by `baton search`
// with item filters, by `baton files`, and shown by `session log`; bad queries refused with a
// code and nothing changed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { queryTerms } from '../src/index/query.ts';
import { ROOT, agentWorld, baton, readJsonl, treeHash } from './helpers.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');
const SESSION = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';

function capturedWorld() {
  const w = agentWorld();
  const dir = join(w.home, '.claude', 'projects', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${SESSION}.jsonl`);
  fs.copyFileSync(FIXTURE, transcript);
  const payload = { session_id: SESSION, transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: 'Stop' };
  const r = baton(['hook', 'claude'], { env: w.env, input: JSON.stringify(payload) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  return { ...w, transcript, payload };
}

test('the turn-end hook captures the transcript once; a second Stop adds nothing', () => {
  const w = capturedWorld();
  const log = join(w.store, 'sessions', SESSION, 'events.jsonl');
  const items = readJsonl(log).filter((e) => e.type === 'transcript.item');
  assert.ok(items.length >= 8, `items: ${items.length}`);
  const kinds = new Set(items.map((e) => `${e.payload.role}/${e.payload.kind}`));
  for (const k of ['user/message', 'assistant/message', 'assistant/tool_call', 'tool/tool_result']) assert.ok(kinds.has(k), `no ${k} in ${[...kinds]}`);
  const write = items.find((e) => e.payload.tool?.name === 'Write');
  assert.deepEqual(write.payload.files, ['plan.md']);
  assert.equal(fs.readFileSync(log, 'utf8').includes('ghp_'), false, 'the fake token the model printed reached the log');
  const r = baton(['hook', 'claude'], { env: w.env, input: JSON.stringify(w.payload) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readJsonl(log).filter((e) => e.type === 'transcript.item').length, items.length);
});

test('search finds items with filters; files lists the items that wrote a file', () => {
  const w = capturedWorld();
  const s = baton(['search', 'plan', '--all', '--agent', 'claude', '--role', 'assistant', '--json'], { env: w.env });
  assert.equal(s.code, 0, s.stderr);
  assert.ok(s.json.hits.length > 0);
  for (const h of s.json.hits) {
    assert.equal(h.session, SESSION);
    assert.equal(h.agent, 'claude');
    assert.equal(h.role, 'assistant');
    assert.match(h.at, /^\d{4}-\d{2}-\d{2}T/);
    assert.match(h.snippet, /\*\*plan\*\*/i);
  }
  // Stemmed: "writing" finds "Write" and "written".
  const st = baton(['search', 'writing', '--all', '--kind', 'message', '--json'], { env: w.env });
  assert.ok(st.json.hits.length >= 2, JSON.stringify(st.json));
  const none = baton(['search', 'plan', '--all', '--agent', 'codex', '--json'], { env: w.env });
  assert.deepEqual(none.json.hits, []);
  const f = baton(['files', 'plan.md', '--all', '--json'], { env: w.env });
  assert.equal(f.code, 0, f.stderr);
  assert.deepEqual(f.json.sessions, [SESSION]);
  assert.ok(f.json.items.some((i: any) => i.tool === 'Write' && i.files.includes('plan.md')));
  const abs = baton(['files', '/home/u/proj/plan.md', '--all', '--json'], { env: w.env });
  assert.deepEqual(abs.json.sessions, [SESSION]);
  const log = baton(['session', 'log', SESSION], { env: w.env });
  assert.match(log.stdout, /-> Write .*\[plan\.md\]/);
  assert.match(log.stdout, /assistant\s+claude\//);
});

test('bad queries and flags are refused with a code, never an SQLite error, and change nothing', () => {
  const w = capturedWorld();
  // The index exists after one search; everything after must leave the store as it is.
  baton(['search', 'plan', '--all'], { env: w.env });
  const before = treeHash(w.store);
  const cases: [string[], RegExp][] = [
    [['search', '*', '--all'], /USAGE/],
    [['search', '"', '--all'], /USAGE/],
    [['search', 'x'.repeat(10_000), '--all'], /USAGE/],
    [['search', 'plan', '--agent', 'nope', '--all'], /USAGE/],
    [['search', 'plan', '--role', 'robot', '--all'], /USAGE/],
    [['search', 'plan', '--since', 'yesterday', '--all'], /USAGE/],
    [['search', 'plan', '--since', '99999999999w', '--all'], /USAGE/],
    [['search', 'plan', '--until', '2026-02-30', '--all'], /USAGE/],
    [['files', 'plan.md', '--since', '99999999999d', '--all'], /USAGE/],
    [['search', 'plan', '--session', 'no-such-session'], /WS001/],
    [['files', '', '--all'], /USAGE/],
  ];
  for (const [args, code] of cases) {
    const r = baton(args, { env: w.env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, code);
    assert.doesNotMatch(r.stderr, /sqlite|fts5/i);
  }
  // Unbalanced quotes and operators search literally.
  const lit = baton(['search', '"plan', 'AND', 'NEAR(', '--all', '--json'], { env: w.env });
  assert.equal(lit.code, 0, lit.stderr);
  assert.equal(treeHash(w.store), before);
  // A NUL byte cannot come through argv; the server and MCP hand queries in as strings.
  assert.throws(() => queryTerms('a\u0000b'), (e: any) => e.code === 'USAGE');
});

test('search --file takes a path relative to the current directory as files does', () => {
  const w = agentWorld();
  const proj = join(w.root, 'proj-x');
  fs.mkdirSync(join(proj, 'sub'), { recursive: true });
  const dir = join(w.home, '.claude', 'projects', '-proj-x');
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, fs.readFileSync(FIXTURE, 'utf8').replaceAll('/home/u/proj', proj));
  assert.equal(baton(['hook', 'claude'], { env: w.env, input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: proj, hook_event_name: 'Stop' }) }).code, 0);
  const here = { env: w.env, cwd: join(proj, 'sub') };
  const files = baton(['files', '../plan.md', '--all', '--json'], here);
  assert.equal(files.code, 0, files.stderr);
  const wrote = files.json.items.map((i: { seq: number }) => i.seq);
  assert.ok(wrote.length > 0);
  const s = baton(['search', 'plan', '--all', '--file', '../plan.md', '--json'], here);
  assert.equal(s.code, 0, s.stderr);
  assert.ok(s.json.hits.length > 0, 'search --file ../plan.md from a subfolder finds the items');
  for (const h of s.json.hits) assert.ok(wrote.includes(h.seq), `hit ${h.seq} is an item files lists`);
});

test('what a tool call ran is searchable: its shell command, though the item shows no text', () => {
  const w = capturedWorld();
  const s = baton(['search', 'printf', '--all', '--kind', 'tool_call', '--json'], { env: w.env });
  assert.equal(s.code, 0, s.stderr);
  assert.deepEqual(
    s.json.hits.map((h: { tool: string; agent: string }) => [h.agent, h.tool]),
    [['claude', 'Bash']],
  );
  assert.match(s.json.hits[0].snippet, /\*\*printf\*\*/);
});
