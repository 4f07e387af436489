// `baton history scan|import` (docs/history.md) run as a user would: the real binary, a temp
// HOME holding every agent's store made of the real agents' fixtures, a temp BATON_HOME.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, batonAsync, tmpDir, treeHash } from './helpers.ts';
import { itemPayloadProblem } from '../src/core/transcript.ts';
import { listEpisodes } from '../src/ops/thread.ts';
import { FsStore } from '../src/store/store.ts';
import { agentEnv, assertOnce, assertUnchanged, createdEvent, fakeAgentStore, itemsOf, snapshot } from './history-helpers.ts';

function setup() {
  const root = tmpDir('baton-history-');
  const home = join(root, 'home');
  const bh = join(root, 'baton');
  fs.mkdirSync(home);
  const sessions = fakeAgentStore(home);
  const env = agentEnv(home);
  const run = (args: string[]) => baton(args, { home: bh, env });
  return { root, home, bh, sessions, env, run };
}

test('import brings every agent\'s fixture session in once, under the hooks\' id, and never touches the agents\' files', () => {
  const { home, bh, sessions, run } = setup();
  const before = snapshot(home);
  const r = run(['--json', 'history', 'import', '--all']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.ok, true);
  assertUnchanged(before, snapshot(home));
  for (const dbFile of ['opencode/opencode.db', 'kilo/kilo.db']) {
    for (const side of ['-wal', '-shm']) assert.ok(!fs.existsSync(join(home, '.local', 'share', `${dbFile}${side}`)), `no ${dbFile}${side} created`);
  }
  for (const s of sessions) {
    const a = r.json.agents.find((x: any) => x.agent === s.agent);
    assert.equal(a.found, 1, `${s.agent} found one session`);
    assert.equal(a.imported, 1, `${s.agent} imported: ${JSON.stringify(r.json.errors)}`);
    const created = createdEvent(bh, s.id);
    assert.equal(created.type, 'session.created');
    assert.equal(created.payload.created_by, `import:${s.agent}`);
    assert.ok(created.payload.workspace.cwd.startsWith('/'), `${s.agent} workspace from the transcript`);
    assert.ok(created.payload.title.length > 0 && !/^\w+ [0-9a-z]{8}$/.test(created.payload.title), `${s.agent} title from the first prompt, not the default: ${created.payload.title}`);
    const items = itemsOf(bh, s.id);
    assert.ok(items.length > 0, `${s.agent} has items`);
    assert.ok(items.every((e) => e.payload.agent === s.agent && e.payload.agent_session === s.id));
    assertOnce(items);
    // Redaction as for every item: the fake token of the recordings is not stored.
    assert.ok(!JSON.stringify(items).includes('ghp_A1b2'), `${s.agent}: the token is redacted`);
  }
  // The Claude title is the first prompt's first line, as the hooks make it.
  const claude = sessions.find((s) => s.agent === 'claude')!;
  assert.equal(createdEvent(bh, claude.id).payload.title, 'Write hello into notes.txt, then a plan in plan.md.');
  // Gemini's resume stub is the same session: one baton session for two files.
  assert.equal(fs.readdirSync(join(bh, 'sessions')).filter((n) => !n.startsWith('.')).length, sessions.length);

  // Run again: everything already there, nothing appended, the store still untouched.
  const counts = sessions.map((s) => itemsOf(bh, s.id).length);
  const again = run(['--json', 'history', 'import']);
  assert.equal(again.code, 0, again.stderr);
  for (const a of again.json.agents) if (a.found) assert.equal(a.already, 1, `${a.agent} already there`);
  assert.equal(again.json.totals.items, 0);
  assert.deepEqual(
    sessions.map((s) => itemsOf(bh, s.id).length),
    counts,
  );
  assertUnchanged(before, snapshot(home));

  // Scan says so, and the index sees the sessions and their items at once.
  const scan = run(['--json', 'history', 'scan']);
  assert.equal(scan.code, 0, scan.stderr);
  for (const s of scan.json.agents) if (s.sessions) assert.deepEqual([s.sessions, s.in_baton, s.not_yet], [1, 1, 0], s.agent);
  const list = run(['--json', 'session', 'list', '--all']);
  assert.equal(list.code, 0, list.stderr);
  const listed = new Set(list.json.sessions.map((x: any) => x.id));
  for (const s of sessions) assert.ok(listed.has(s.id), `${s.agent} listed`);
  // Every agent's items, not only the 20 hits the default limit keeps (ranked with recency by
  // the agents' own times, the newest sessions' hits come first).
  const hits = run(['--json', 'search', '--all', '--limit', '200', 'notes']);
  assert.equal(hits.code, 0, hits.stderr);
  for (const s of sessions) assert.ok(hits.json.hits.some((h: any) => h.session === s.id && h.type === 'transcript.item'), `search finds ${s.agent}'s imported items`);
});

test('scan before import: counts, bytes and not yet; --dry-run writes nothing', () => {
  const { home, bh, sessions, run } = setup();
  const scan = run(['--json', 'history', 'scan', 'claude', 'codex']);
  assert.equal(scan.code, 0, scan.stderr);
  assert.deepEqual(
    scan.json.agents.map((a: any) => [a.agent, a.sessions, a.in_baton, a.not_yet]),
    [
      ['claude', 1, 0, 1],
      ['codex', 1, 0, 1],
    ],
  );
  assert.equal(scan.json.agents[0].bytes, fs.statSync(sessions.find((s) => s.agent === 'claude')!.path).size);
  const before = snapshot(home);
  const dry = run(['--json', 'history', 'import', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.json.dry_run, true);
  assert.equal(dry.json.totals.imported, sessions.length);
  assert.ok(!fs.existsSync(join(bh, 'sessions')) || fs.readdirSync(join(bh, 'sessions')).length === 0, 'a dry run makes no session');
  assertUnchanged(before, snapshot(home));
});

test('refusals: an unknown agent, a bad date, agents and --all together: USAGE, nothing changed', () => {
  const { home, bh, run } = setup();
  const before = snapshot(home);
  fs.mkdirSync(bh);
  const store = treeHash(bh);
  for (const args of [
    ['history', 'import', 'clode'],
    ['history', 'scan', 'clode'],
    ['history', 'import', '--since', '2026-02-31'],
    ['history', 'import', '--since', 'yesterday'],
    ['history', 'import', 'claude', '--all'],
  ]) {
    const r = run(['--json', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.json.error.code, 'USAGE');
    if (args.includes('clode')) assert.match(r.json.error.message, /known: claude, codex, gemini, qwen, copilot, droid, opencode, kilo, pi/);
    assert.equal(treeHash(bh), store, 'the store did not change');
  }
  assertUnchanged(before, snapshot(home));
});

test('--since and --project choose the sessions', () => {
  const { home, bh, sessions, run } = setup();
  const claude = sessions.find((s) => s.agent === 'claude')!;
  fs.utimesSync(claude.path, new Date('2026-11-01T00:00:00Z'), new Date('2026-11-01T00:00:00Z'));
  const r = run(['--json', 'history', 'import', 'claude', 'codex', '--since', '2026-11-15']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.json.agents.map((a: any) => [a.agent, a.imported, a.filtered]),
    [
      ['claude', 0, 1],
      ['codex', 1, 0],
    ],
  );
  assert.ok(!fs.existsSync(join(bh, 'sessions', claude.id)));
  const p = run(['--json', 'history', 'import', 'claude', 'qwen', 'pi', '--project', '/home/u']);
  assert.equal(p.code, 0, p.stderr);
  // claude and qwen ran in /home/u/proj; pi's recording in /tmp/rec/project.
  assert.deepEqual(
    p.json.agents.map((a: any) => [a.agent, a.imported, a.filtered]),
    [
      ['claude', 1, 0],
      ['qwen', 1, 0],
      ['pi', 0, 1],
    ],
  );
  void home;
});

test('bad input: a corrupt line is skipped and counted, an unknown format version skips the file (TR002), a link out of the store is not followed', () => {
  const { root, home, bh, sessions, run } = setup();
  const codex = sessions.find((s) => s.agent === 'codex')!;
  const lines = fs.readFileSync(codex.path, 'utf8').split('\n');
  lines.splice(5, 0, '{"this is": not json');
  fs.writeFileSync(codex.path, lines.join('\n'));
  const pi = sessions.find((s) => s.agent === 'pi')!;
  fs.writeFileSync(pi.path, fs.readFileSync(pi.path, 'utf8').replace('"type":"session","version":3', '"type":"session","version":99'));
  // A Claude transcript that is a link to a file outside the store.
  const outside = join(root, 'outside.jsonl');
  fs.copyFileSync(sessions.find((s) => s.agent === 'claude')!.path, outside);
  const linkId = '11111111-2222-4333-8444-555555555555';
  fs.symlinkSync(outside, join(home, '.claude', 'projects', '-home-u-proj', `${linkId}.jsonl`));
  const before = snapshot(home);
  const r = run(['--json', 'history', 'import', 'codex', 'pi', 'claude']);
  assert.equal(r.code, 0, r.stderr);
  const a = Object.fromEntries(r.json.agents.map((x: any) => [x.agent, x]));
  assert.equal(a.codex.imported, 1);
  assert.equal(a.codex.skipped_lines, 1);
  assert.deepEqual(a.codex.skips, [{ file: codex.path, line: 6, reason: 'not JSON' }]);
  assert.ok(itemsOf(bh, codex.id).length > 0, 'the rest of the session imported');
  const tr002 = r.json.errors.find((e: any) => e.code === 'TR002');
  assert.ok(tr002, JSON.stringify(r.json.errors));
  assert.equal(tr002.version, '99');
  assert.equal(tr002.file, pi.path);
  assert.equal(a.pi.imported, 0);
  assert.equal(a.pi.skipped, 1);
  assert.ok(!fs.existsSync(join(bh, 'sessions', pi.id, 'events.jsonl')), 'no session for a file baton cannot read');
  assert.equal(a.claude.found, 1, 'the link is not a session file');
  assert.ok(!fs.existsSync(join(bh, 'sessions', linkId)));
  assertUnchanged(before, snapshot(home));
});

test('a file still being written imports what is complete; the rest comes with the next run', () => {
  const { bh, sessions, run } = setup();
  const claude = sessions.find((s) => s.agent === 'claude')!;
  const whole = fs.readFileSync(claude.path);
  const ref = setup();
  assert.equal(ref.run(['history', 'import', 'claude']).code, 0);
  const expected = itemsOf(ref.bh, claude.id).map((e) => e.payload.item_id);
  // Cut in the middle of the line holding the last items.
  const lastUser = whole.lastIndexOf('"type":"user"');
  fs.writeFileSync(claude.path, whole.subarray(0, lastUser));
  const r1 = run(['--json', 'history', 'import', 'claude']);
  assert.equal(r1.code, 0, r1.stderr);
  assert.equal(r1.json.agents[0].skipped_lines, 0, 'the torn line is not counted as bad');
  const first = itemsOf(bh, claude.id).map((e) => e.payload.item_id);
  assert.ok(first.length > 0 && first.length < expected.length);
  const scan = run(['--json', 'history', 'scan', 'claude']);
  assert.equal(scan.json.agents[0].partial, 1, 'not listed as complete');
  fs.writeFileSync(claude.path, whole);
  const r2 = run(['--json', 'history', 'import', 'claude']);
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(
    itemsOf(bh, claude.id).map((e) => e.payload.item_id),
    expected,
  );
});

test('an import beside a hook capture, and two imports at once: no item twice', async () => {
  const { bh, sessions, env, run } = setup();
  const claude = sessions.find((s) => s.agent === 'claude')!;
  const stop = JSON.stringify({ session_id: claude.id, transcript_path: claude.path, cwd: '/home/u/proj', hook_event_name: 'Stop', stop_hook_active: false });
  const [a, b, h] = await Promise.all([
    batonAsync(['--json', 'history', 'import', 'claude', 'codex'], { home: bh, env }),
    batonAsync(['--json', 'history', 'import', 'claude', 'codex'], { home: bh, env }),
    batonAsync(['hook', 'claude'], { home: bh, env, input: stop }),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(h.code, 0, h.stderr);
  // And a hook capture after the import, as when the session is resumed with baton installed.
  assert.equal(baton(['hook', 'claude'], { home: bh, env, input: stop }).code, 0);
  const ref = setup();
  assert.equal(ref.run(['history', 'import', 'claude', 'codex']).code, 0);
  for (const s of sessions.filter((x) => x.agent === 'claude' || x.agent === 'codex')) {
    const items = itemsOf(bh, s.id);
    assertOnce(items);
    assert.deepEqual(
      items.map((e) => e.payload.item_id),
      itemsOf(ref.bh, s.id).map((e) => e.payload.item_id),
      `${s.agent}: every item exactly once`,
    );
  }
  const again = run(['--json', 'history', 'import', 'claude']);
  assert.equal(again.json.totals.items, 0);
});

test("a fresh session has no manifest.json or .verified: its first reader and its next append make them from the log", () => {
  const { bh, sessions, run } = setup();
  const claude = sessions.find((s) => s.agent === 'claude')!;
  const codex = sessions.find((s) => s.agent === 'codex')!;
  const whole = fs.readFileSync(claude.path);
  fs.writeFileSync(claude.path, whole.subarray(0, whole.lastIndexOf('"type":"user"')));
  assert.equal(run(['history', 'import', 'claude', 'codex']).code, 0);
  const dir = join(bh, 'sessions', claude.id);
  for (const d of [dir, join(bh, 'sessions', codex.id)]) {
    for (const f of ['.verified', 'manifest.json', 'context.md', '.mutex']) assert.equal(fs.existsSync(join(d, f)), false, `${f} in ${d}`);
    assert.ok(fs.existsSync(join(d, 'transcripts', 'items.v2.idx')) && fs.existsSync(join(d, 'transcripts', 'recent.json')));
  }
  // A reader (session show) rebuilds the manifest from the log, and says it did (WS202).
  const show = run(['--json', 'session', 'show', codex.id]);
  assert.equal(show.code, 0, show.stderr);
  assert.equal(show.json.projections_behind?.code, 'WS202');
  const store = new FsStore(bh);
  const rebuilt = JSON.parse(fs.readFileSync(join(bh, 'sessions', codex.id, 'manifest.json'), 'utf8'));
  assert.deepEqual(show.json.manifest, rebuilt);
  assert.deepEqual(rebuilt, store.refreshProjections(codex.id));
  assert.equal(rebuilt.workspace?.cwd, createdEvent(bh, codex.id).payload.workspace.cwd);
  // --project finds an imported session's folder in its log while it has no manifest, not in
  // the transcript (rewritten here to name another folder).
  const moved = whole.toString('utf8').replaceAll('/home/u/proj', '/elsewhere/proj');
  fs.writeFileSync(claude.path, moved.slice(0, moved.lastIndexOf('"type":"user"')));
  const p = run(['--json', 'history', 'import', 'claude', '--project', '/home/u', '--dry-run']);
  assert.equal(p.code, 0, p.stderr);
  assert.deepEqual([p.json.agents[0].filtered, p.json.agents[0].imported], [0, 1], 'the recorded workspace, not the rewritten transcript');
  assert.equal(fs.existsSync(join(dir, 'manifest.json')), false);
  // The next append (the grown file's import) verifies the chain from the log, writes the sidecar and the manifest.
  fs.writeFileSync(claude.path, whole);
  const r = run(['--json', 'history', 'import', 'claude']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.json.agents[0].items > 0);
  assert.ok(fs.existsSync(join(dir, '.verified')), 'written by the next append');
  const m = JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const v = run(['--json', 'session', 'verify', claude.id]);
  assert.equal(v.code, 0, v.stderr);
  assert.equal(m.status.last_event_seq, v.json.last_seq);
  assert.deepEqual(m, new FsStore(bh).refreshProjections(claude.id));
});

test("an imported session's last activity is the agent's, not the import's: the list's order, the manifest and the index agree; a hook event moves it to now", () => {
  const { home, bh, sessions, run } = setup();
  const started = new Date().toISOString();
  assert.equal(run(['history', 'import', '--all']).code, 0);
  // What the agents recorded: the latest `at` among each session's events (all in the past).
  const lastAt = (id: string): string =>
    fs
      .readFileSync(join(bh, 'sessions', id, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).payload.at as string | undefined)
      .filter((t): t is string => !!t)
      .sort()
      .at(-1)!;
  const expected = new Map(sessions.map((s) => [s.id, lastAt(s.id)]));
  for (const s of sessions) {
    assert.ok(expected.get(s.id)! < started, `${s.agent}: its transcript's times are before the import`);
    assert.ok(createdEvent(bh, s.id).payload.at <= expected.get(s.id)!, `${s.agent}: session.created says when it began`);
  }
  const list = run(['--json', 'session', 'list', '--all']);
  assert.equal(list.code, 0, list.stderr);
  for (const x of list.json.sessions) assert.equal(x.last_touched_at, expected.get(x.id), `${x.id}: listed at the agent's last activity`);
  // Newest first by that activity (ties by id), not in the order the import wrote them.
  const order = [...expected].sort((a, b) => (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : a[0] < b[0] ? -1 : 1)).map(([id]) => id);
  assert.deepEqual(
    list.json.sessions.map((x: any) => x.id),
    order,
  );
  // The manifest a reader builds from the log says the same.
  const claude = sessions.find((s) => s.agent === 'claude')!;
  const show = run(['--json', 'session', 'show', claude.id]);
  assert.equal(show.code, 0, show.stderr);
  assert.equal(show.json.manifest.status.last_touched_at, expected.get(claude.id));
  // The session goes on in its agent: a hook's event counts at its own time, and it leads the list.
  const payload = { session_id: claude.id, transcript_path: claude.path, cwd: '/home/u/proj', hook_event_name: 'UserPromptSubmit', prompt: 'And now the tests.' };
  const hook = baton(['hook', 'claude', '--aspects', 'prompt'], { home: bh, env: agentEnv(home), input: JSON.stringify(payload) });
  assert.equal(hook.code, 0, hook.stderr);
  const after = run(['--json', 'session', 'list', '--all']);
  assert.equal(after.json.sessions[0].id, claude.id);
  assert.ok(after.json.sessions[0].last_touched_at >= started, after.json.sessions[0].last_touched_at);
  const manifest = JSON.parse(fs.readFileSync(join(bh, 'sessions', claude.id, 'manifest.json'), 'utf8'));
  assert.equal(manifest.status.last_touched_at, after.json.sessions[0].last_touched_at, 'the hook patched the manifest as the index folds the log');
});

test("an imported session's log, episodes and search hits are dated when they happened, not when the import wrote them", () => {
  const { bh, sessions, run } = setup();
  const started = new Date().toISOString();
  assert.equal(run(['history', 'import', '--all']).code, 0);
  const claude = sessions.find((s) => s.agent === 'claude')!;
  const log = run(['session', 'log', claude.id]);
  assert.equal(log.code, 0, log.stderr);
  const rows = log.stdout.split('\n').filter((l) => /^\s+\d+ {2}/.test(l));
  const types = new Set(rows.map((l) => l.trim().split(/\s+/)[2]));
  assert.ok(types.has('session.created') && types.has('episode.opened') && types.has('episode.closed'), [...types].join(' '));
  for (const row of rows) assert.ok(row.trim().split(/\s+/)[1] < started, `dated before the import: ${row}`);
  // The episodes as the app server reads them (thread/read, ops/thread.ts) carry the same times.
  const episodes = listEpisodes(new FsStore(bh), claude.id);
  assert.ok(episodes.length > 0);
  for (const e of episodes) assert.ok(e.opened_at < started && e.closed_at! < started, JSON.stringify(e));
  // A search hit on the session's title (its session.created) is dated at the agent's start.
  const title = createdEvent(bh, claude.id).payload.title.split(' ')[0];
  const found = run(['--json', 'search', '--all', title]);
  assert.equal(found.code, 0, found.stderr);
  assert.ok(found.json.hits.length > 0);
  for (const h of found.json.hits) assert.ok(h.at < started, `${h.type} ${h.at}`);
  assert.ok(found.json.hits.some((h: any) => h.type === 'session.created'), 'the title is a hit too');
});

test('every item imported from the nine agents\' real transcripts is one session import takes back (itemPayloadProblem: none)', () => {
  const { bh, run } = setup();
  assert.equal(run(['history', 'import', '--all']).code, 0);
  let n = 0;
  for (const id of fs.readdirSync(join(bh, 'sessions'))) {
    for (const e of itemsOf(bh, id)) {
      assert.equal(itemPayloadProblem(e.payload), null, `${id} seq ${e.seq}: ${JSON.stringify(e.payload).slice(0, 200)}`);
      n++;
    }
  }
  assert.ok(n > 50, `${n} items`);
});

test('session log shows what a tool call ran, for every agent: its shell command, not the model\'s title for the call', () => {
  const { bh, sessions, run } = setup();
  assert.equal(run(['history', 'import', '--all']).code, 0);
  for (const s of sessions) {
    const log = baton(['session', 'log', s.id], { home: bh });
    assert.equal(log.code, 0, log.stderr);
    const calls = log.stdout.split('\n').filter((l) => /-> (Bash|bash|exec_command|run_shell_co|Execute)/.test(l));
    assert.ok(calls.length > 0, `${s.agent}: a shell call in ${log.stdout}`);
    for (const l of calls) assert.match(l, /printf 'hello\\n' > notes\.txt/, `${s.agent}: ${l}`);
  }
});
