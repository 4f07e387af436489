// Special files where an agent keeps its transcripts (issue 24's hostile inputs). A 2 GiB sparse
// file: every file reader's capture reads a bounded window per run and counts one "line too
// large", no session is made of it, and the file is left as it was; `baton history import` over
// a store holding one next to a real session imports the real one, counts the other, and leaves
// a store that lists cleanly (the folder keeping the sparse file's cursor is no session). A FIFO
// named as the transcript: the turn-end hook refuses it at once instead of waiting on it (a plain
// open blocks until something writes: the agent would wait on its hook). A path outside the
// agent's store or a link out of it: refused, one stderr line, and counted where doctor shows it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { CAPTURE_BUDGET, captureOnce, sessionCursors } from '../src/transcripts/capture.ts';
import { READER_AGENTS, findReader } from '../src/transcripts/index.ts';
import { MAX_TRANSCRIPT_LINE } from '../src/transcripts/parse.ts';
import { FsStore } from '../src/store/store.ts';
import { ROOT, baton, tmpDir } from './helpers.ts';
import { agentEnv, itemsOf } from './history-helpers.ts';

const TWO_GIB = 2 * 1024 ** 3;

/** An empty file extended to 2 GiB: holes only, no disk used. */
function sparseFile(path: string): fs.Stats {
  fs.mkdirSync(join(path, '..'), { recursive: true });
  fs.writeFileSync(path, '');
  fs.truncateSync(path, TWO_GIB);
  fs.utimesSync(path, new Date('2026-12-02T01:00:00Z'), new Date('2026-12-02T01:00:00Z'));
  return fs.statSync(path);
}

/** Size, mtime and allocated blocks: a write into the holes would change the blocks. */
const stamp = (st: fs.Stats): string => `${st.size} ${st.mtimeMs} ${st.blocks}`;

test('every file reader: a 2 GiB sparse transcript is read a bounded window per run, one line too large, no session made, the file untouched', () => {
  const root = tmpDir();
  const readerEnv = { home: root, env: { HOME: root } };
  const store = new FsStore(join(root, 'store'));
  const files = READER_AGENTS.map((a) => findReader(a)!).filter((r) => r.format === 'jsonl');
  assert.equal(files.length, 7, 'claude, codex, gemini, qwen, copilot, droid and pi read files');
  for (const reader of files) {
    const path = join(reader.roots(readerEnv)[0], 'project', `${reader.agent}-sparse.jsonl`);
    const before = stamp(sparseFile(path));
    const sessionId = `sparse-${reader.agent}`;
    const writer = { surface: `hook:${reader.agent}`, instanceId: `hook:${reader.agent}:sparse`, actor: 'agent' as const };
    const req = {
      store,
      sessionId,
      reader,
      path,
      agentSession: 'sparse',
      writer,
      now: new Date('2026-12-02T02:00:00Z'),
      readerEnv,
      create: () => store.ensure(sessionId, { title: 't', workspace: { cwd: root }, writer, createdBy: `hook:${reader.agent}` }),
    };
    const first = captureOnce(req);
    assert.equal(first.refused, undefined, reader.agent);
    assert.deepEqual([first.appended, first.skips, first.more], [0, [{ line: 1, reason: 'line too large' }], true], reader.agent);
    assert.ok(first.bytes <= MAX_TRANSCRIPT_LINE + 1, `${reader.agent}: the first run read ${first.bytes} bytes`);
    // The rest of the line is dropped a budget at a time, nothing counted twice.
    for (let i = 0; i < 2; i++) {
      const next = captureOnce(req);
      assert.deepEqual([next.appended, next.skips, next.more], [0, [], true], reader.agent);
      assert.ok(next.bytes > 0 && next.bytes <= CAPTURE_BUDGET, `${reader.agent}: a later run read ${next.bytes} bytes`);
    }
    assert.equal(store.exists(sessionId), false, `${reader.agent}: no session of a file that gave no item`);
    const cursors = sessionCursors(store.dir(sessionId));
    assert.deepEqual(
      cursors.map((c) => c.skipped),
      [{ 'line too large': 1 }],
      reader.agent,
    );
    assert.equal(stamp(fs.statSync(path)), before, `${reader.agent}: the agent's file is as it was`);
    fs.rmSync(path);
  }
});

test('history import beside a 2 GiB sparse file: the real session in, the sparse one counted, the store lists cleanly and doctor counts one session', () => {
  const root = tmpDir('baton-history-');
  const home = join(root, 'home');
  const bh = join(root, 'baton');
  const project = join(home, '.claude', 'projects', '-home-u-proj');
  fs.mkdirSync(project, { recursive: true });
  const fixture = fs.readFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl'));
  const realId = /"sessionId":"([^"]+)"/.exec(fixture.toString('utf8'))?.[1] ?? '';
  fs.writeFileSync(join(project, `${realId}.jsonl`), fixture);
  const sparseId = '0a1b2c3d-1111-2222-3333-444455556666';
  const sparse = join(project, `${sparseId}.jsonl`);
  const before = stamp(sparseFile(sparse));
  const env = agentEnv(home);
  const run = (args: string[]) => baton(args, { home: bh, env });

  const r = run(['--json', 'history', 'import', 'claude']);
  assert.equal(r.code, 0, r.stderr);
  const claude = r.json.agents[0];
  assert.deepEqual([claude.found, claude.imported, claude.skipped, claude.skipped_lines], [2, 1, 1, 1]);
  assert.deepEqual(claude.skips, [{ file: sparse, line: 1, reason: 'line too large' }]);
  assert.ok(itemsOf(bh, realId).length > 0);
  assert.equal(fs.existsSync(join(bh, 'sessions', sparseId, 'events.jsonl')), false, 'no session of the sparse file');
  assert.equal(stamp(fs.statSync(sparse)), before, 'the sparse file is as it was');
  assert.deepEqual(fs.readFileSync(join(project, `${realId}.jsonl`)), fixture);

  // The folder keeping the sparse file's cursor is no session, and no row missing from the index.
  for (let i = 0; i < 2; i++) {
    const l = run(['--json', 'session', 'list', '--all']);
    assert.equal(l.code, 0, l.stderr);
    assert.deepEqual(
      l.json.sessions.map((s: { id: string }) => s.id),
      [realId],
    );
    assert.deepEqual(l.json.notes ?? [], []);
  }
  const d = run(['--json', 'doctor']);
  assert.equal(d.json.sessions, 1);
  assert.deepEqual(
    d.json.transcript_skips.map((s: { session: string; skipped: unknown }) => [s.session, s.skipped]),
    [[sparseId, { 'line too large': 1 }]],
  );

  // Again: the cursor says the sparse file was read to its end.
  const again = run(['--json', 'history', 'import', 'claude']);
  assert.equal(again.code, 0, again.stderr);
  assert.ok(again.json.agents[0].bytes_read < 1024 * 1024, `read ${again.json.agents[0].bytes_read} bytes again`);
  assert.equal(again.json.agents[0].items, 0);
});

test('a FIFO named as the transcript: the turn-end hook refuses it at once (TR003, silent at a hook like a transcript not there yet), exit 0, the FIFO as it was', (t) => {
  const root = tmpDir();
  const home = join(root, 'home');
  const project = join(home, '.claude', 'projects', '-work-p');
  fs.mkdirSync(project, { recursive: true });
  const sid = randomUUID();
  const fifo = join(project, `${sid}.jsonl`);
  const made = spawnSync('mkfifo', [fifo]);
  if (made.status !== 0) return t.skip('no mkfifo here');
  const r = baton(['hook', 'claude'], {
    home: join(root, 'baton'),
    env: { ...agentEnv(home) } as Record<string, string>,
    input: JSON.stringify({ session_id: sid, hook_event_name: 'Stop', transcript_path: fifo, cwd: root }),
  });
  assert.equal(r.code, 0, `the hook did not finish: ${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.ok(fs.lstatSync(fifo).isFIFO());
  assert.deepEqual(itemsOf(join(root, 'baton'), sid), []);
});

test('a transcript outside the agent store, or a link out of it: one stderr line each turn end, counted by doctor (TR001), nothing read', () => {
  const root = tmpDir();
  const home = join(root, 'home');
  const bh = join(root, 'baton');
  const project = join(home, '.claude', 'projects', '-work-p');
  fs.mkdirSync(project, { recursive: true });
  const outside = join(root, 'elsewhere.jsonl');
  fs.writeFileSync(outside, `${JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content: 'a secret plan' } })}\n`);
  const sid = randomUUID();
  const link = join(project, `${sid}.jsonl`);
  fs.symlinkSync(outside, link);
  const before = stamp(fs.statSync(outside));
  for (const path of [outside, link]) {
    const r = baton(['hook', 'claude'], { home: bh, env: { ...agentEnv(home) } as Record<string, string>, input: JSON.stringify({ session_id: sid, hook_event_name: 'Stop', transcript_path: path, cwd: root }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^baton: hook transcript: TR001 .* is outside claude's store .* or a link out of it; not read\n$/);
  }
  const d = baton(['--json', 'doctor'], { home: bh, env: { ...agentEnv(home) } as Record<string, string> });
  assert.deepEqual(
    d.json.transcript_skips.map((s: { session: string; agent: string; path: string; skipped: unknown }) => [s.session, s.agent, s.path, s.skipped]),
    [[sid, 'claude', link, { 'refused TR001': 2 }]],
  );
  assert.ok(d.json.problems.some((p: { message: string }) => /TR001/.test(p.message)));
  assert.deepEqual(itemsOf(bh, sid), []);
  assert.equal(stamp(fs.statSync(outside)), before);
});
