// session export / import as a user runs them: the real binary, temporary stores. What an
// export holds (and must not), the round trips baton -> zip -> baton and baton -> World
// Session TOML -> baton, and the export's own refusals.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'smol-toml';
import { readZip } from './exchange-helpers.ts';
import { ROOT, baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

interface Fixture {
  home: string;
  ws: string;
  userHome: string;
  out: string;
  id: string;
  env: Record<string, string>;
}

/** A session with paths, a secret, a redacted word, a prompt, a custom event, an artifact and a pointer. */
function fixture(): Fixture {
  const root = tmpDir();
  dirs.push(root);
  const f = { home: join(root, 'store'), ws: join(root, 'ws'), userHome: join(root, 'user'), out: join(root, 'out') } as Fixture;
  for (const d of [f.ws, f.userHome, f.out]) fs.mkdirSync(d);
  f.env = { BATON_INSTANCE: 'tester', HOME: f.userHome };
  const b = (args: string[], input?: string) => {
    const r = baton(args, { home: f.home, env: f.env, cwd: f.ws, input });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  f.id = b(['session', 'new', 'Annotate the Laozi', '--cwd', f.ws]).stdout.trim();
  b(['session', 'append', f.id, '--text', `read ${f.ws}/src/a.ts and ${f.userHome}/notes/x.md; password=hunter2222`]);
  b(['session', 'append', f.id, '--text', 'codename BLUEBIRD is internal', '--tag', 'decision']);
  b(['session', 'redact', f.id, '--pattern', 'BLUEBIRD']);
  b(['session', 'append', f.id, '--type', 'prompt.submitted', '--text', 'my private prompt text']);
  b(['session', 'append', f.id, '--type', 'x.tool.ran', '--text', 'ran the tests', '--actor', 'agent']);
  fs.writeFileSync(join(f.ws, 'notes.md'), '# notes\n');
  b(['session', 'artifact', 'add', f.id, join(f.ws, 'notes.md')]);
  const req = { schema_version: 3, session_id: f.id, expected_generation: 'ABSENT', expected_revision: 0, task_id: '3f1c9a52-8d3b-4e2a-9c1d-2b7e5f6a8c90', target_status: 'CLEAN', pointer_text: `Goal: annotate\nNext: chapter 2 in ${f.ws}/ch2.md` };
  b(['pointer', 'publish'], JSON.stringify(req));
  b(['session', 'release', f.id]);
  return f;
}

function run(f: Fixture, args: string[], home = f.home) {
  return baton(args, { home, env: f.env, cwd: f.ws });
}

const keep = (e: { type: string; ts: string; surface: string; actor: string; payload: unknown }) => ({ type: e.type, ts: e.ts, surface: e.surface, actor: e.actor, payload: e.payload });

/** An exported event as its imported copy holds it: payload fields citing a seq of the same log move on with it (the redaction's rewrite cites the event before it and the redacted note). */
const moved = <E extends { type: string; payload: any }>(e: E): E =>
  e.type === 'context.rewritten' ? { ...e, payload: { ...e.payload, prev_seq: e.payload.prev_seq + 1, redacts: e.payload.redacts.map((n: number) => n + 1) } } : e;

test('an export holds the shareable log, the artifacts and a manifest digesting every entry; no lock, mutex, cache or local path', async () => {
  const f = fixture();
  const storeBefore = treeHash(f.home);
  const zipPath = join(f.out, 'laozi.zip');
  const r = run(f, ['session', 'export', f.id, '--out', zipPath, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(treeHash(f.home), storeBefore, 'export writes nothing in the store');
  assert.deepEqual(fs.readdirSync(f.out), ['laozi.zip'], 'no temporary file is left beside the zip');
  const entries = await readZip(zipPath);
  assert.deepEqual([...entries.keys()].sort(), ['artifacts/notes.md', 'baton-export.json', 'events.jsonl']);
  for (const [name, e] of entries) assert.equal(e.mode & 0o170777, 0o100600, `${name} is a private regular file`);
  const manifestBytes = entries.get('baton-export.json')!.data;
  assert.equal(r.json.digest, sha(manifestBytes), 'the digest is the manifest\'s sha256');
  const manifest = JSON.parse(manifestBytes.toString());
  assert.equal(manifest.format, 'baton-export');
  assert.equal(manifest.origin_id, f.id);
  assert.equal(manifest.title, 'Annotate the Laozi');
  assert.deepEqual(manifest.workspace, { name: 'ws', hash: sha(f.ws).slice(0, 16) });
  assert.deepEqual(manifest.entries.map((e: { name: string }) => e.name).sort(), ['artifacts/notes.md', 'events.jsonl']);
  for (const e of manifest.entries) {
    assert.equal(e.sha256, sha(entries.get(e.name)!.data), `${e.name} digest`);
    assert.equal(e.size, entries.get(e.name)!.data.length, `${e.name} size`);
  }
  const all = [...entries.values()].map((e) => e.data.toString('utf8')).join('\n');
  for (const local of [f.ws, f.userHome, f.home]) assert.ok(!all.includes(local), `no ${local} in the export`);
  assert.ok(!all.includes('BLUEBIRD'), 'a `session redact` pattern is applied');
  assert.ok(!all.includes('hunter2222'), 'secrets stay redacted');
  assert.ok(!all.includes('my private prompt text'), 'prompt text stays home unless asked for');
  const log = entries.get('events.jsonl')!.data.toString().trim().split('\n').map((l) => JSON.parse(l));
  assert.match(log.find((e) => e.type === 'context.appended').payload.text, /^read <workspace>\/src\/a\.ts and ~\/notes\/x\.md; password=<redacted>$/);
  assert.deepEqual(log[0].payload.workspace, { name: 'ws', hash: sha(f.ws).slice(0, 16) });
  const prompt = log.find((e) => e.type === 'prompt.submitted');
  assert.equal(prompt.payload.text, '');
  assert.equal(prompt.payload.truncated, true);
  assert.equal(prompt.payload.original_bytes, Buffer.byteLength('my private prompt text'));
  // The raw log at home is untouched: it keeps the redacted word (seed 003).
  assert.ok(fs.readFileSync(join(f.home, 'sessions', f.id, 'events.jsonl'), 'utf8').includes('BLUEBIRD'));

  const withPrompts = join(f.out, 'prompts.zip');
  assert.equal(run(f, ['session', 'export', f.id, '--out', withPrompts, '--include-prompts']).code, 0);
  assert.ok((await readZip(withPrompts)).get('events.jsonl')!.data.toString().includes('my private prompt text'));
});

test('import: a new id, session.imported first naming origin and digest, then every event re-sequenced with its ts, surface, actor and payload', async () => {
  const f = fixture();
  const zipPath = join(f.out, 'laozi.zip');
  const ex = run(f, ['session', 'export', f.id, '--out', zipPath, '--json']);
  assert.equal(ex.code, 0, ex.stderr);
  const exported = (await readZip(zipPath)).get('events.jsonl')!.data.toString().trim().split('\n').map((l) => JSON.parse(l));
  const other = tmpDir('baton-other-');
  dirs.push(other);
  const target = join(other, 'store');
  const here = join(other, 'here');
  fs.mkdirSync(here);
  const im = run(f, ['session', 'import', zipPath, '--cwd', here, '--json'], target);
  assert.equal(im.code, 0, im.stderr);
  assert.notEqual(im.json.id, f.id);
  assert.equal(im.json.origin_id, f.id);
  assert.equal(im.json.digest, ex.json.digest);
  const log = readJsonl(join(target, 'sessions', im.json.id, 'events.jsonl'));
  assert.equal(log[0].seq, 1);
  assert.equal(log[0].type, 'session.imported');
  assert.equal(log[0].payload.origin_id, f.id);
  assert.equal(log[0].payload.digest, ex.json.digest);
  assert.equal(log[0].payload.workspace.cwd, here);
  assert.equal(log[0].payload.title, 'Annotate the Laozi');
  const origin = log.slice(1, exported.length + 1);
  assert.deepEqual(origin.map((e) => e.seq), exported.map((e) => e.seq + 1));
  assert.deepEqual(origin.map(keep), exported.map(moved).map(keep));
  const rewrite = origin.find((e) => e.type === 'context.rewritten');
  assert.match(log[rewrite.payload.redacts[0] - 1].payload.text, /is internal/);
  // The origin's lease does not travel.
  const tail = log.slice(exported.length + 1);
  assert.deepEqual(tail.map((e) => e.type), []);
  assert.equal(fs.readFileSync(join(target, 'sessions', im.json.id, 'artifacts', 'notes.md'), 'utf8'), '# notes\n');
  const v = run(f, ['session', 'verify', im.json.id, '--json'], target);
  assert.equal(v.code, 0, v.stdout);
  const list = baton(['session', 'list', '--json'], { home: target, cwd: here });
  assert.deepEqual(list.json.sessions.map((s: { id: string; state: string; title: string }) => [s.id, s.state, s.title]), [[im.json.id, 'suspended', 'Annotate the Laozi']]);
  // Imported twice: two sessions, two ids.
  const again = run(f, ['session', 'import', zipPath, '--cwd', here, '--title', 'Second copy', '--json'], target);
  assert.equal(again.code, 0, again.stderr);
  assert.notEqual(again.json.id, im.json.id);
  assert.equal(baton(['session', 'show', again.json.id, '--json'], { home: target }).json.manifest.title, 'Second copy');
});

test('a lease still open at export is closed in the copy, which is suspended', () => {
  const f = fixture();
  assert.equal(run(f, ['session', 'resume', f.id]).code, 0);
  const zipPath = join(f.out, 'held.zip');
  assert.equal(run(f, ['session', 'export', f.id, '--out', zipPath]).code, 0);
  const target = join(f.out, 'store2');
  const im = run(f, ['session', 'import', zipPath, '--json'], target);
  assert.equal(im.code, 0, im.stderr);
  const log = readJsonl(join(target, 'sessions', im.json.id, 'events.jsonl'));
  const last = log[log.length - 1];
  assert.equal(last.type, 'lock.released');
  assert.equal(last.payload.reason, 'expired');
  assert.equal(baton(['session', 'show', im.json.id, '--json'], { home: target }).json.manifest.status.state, 'suspended');
});

test('world-session-v1: the seed layout with [[event]] tables; baton -> TOML -> baton keeps every event', async () => {
  const f = fixture();
  const zipPath = join(f.out, 'world.zip');
  const r = run(f, ['session', 'export', f.id, '--format', 'world-session-v1', '--out', zipPath, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const entries = await readZip(zipPath);
  const base = `.agents/world.state/sessions/${f.id}/`;
  assert.deepEqual(
    [...entries.keys()].sort(),
    ['.agents/world.state/index.toml', `${base}artifacts/notes.md`, `${base}context.md`, `${base}events.toml`, `${base}manifest.toml`, 'baton-export.json'].sort(),
  );
  const eventsToml = entries.get(`${base}events.toml`)!.data.toString();
  assert.match(eventsToml, /^\[\[event\]\]\nseq = 1\n/);
  assert.match(eventsToml, /\npayload_json = /, 'a payload with a null (pointer metadata) goes as JSON text');
  assert.match(eventsToml, /\n\[event\.payload\]\ntext = /, 'the others as [event.payload] tables');
  const doc = parse(eventsToml) as { event: Record<string, unknown>[] };
  const manifest = parse(entries.get(`${base}manifest.toml`)!.data.toString()) as { session: Record<string, any> };
  assert.equal(manifest.session.id, f.id);
  assert.equal(manifest.session.schema_version, 'world-session-v1');
  assert.equal(manifest.session.status.last_event_seq, doc.event.length);
  assert.deepEqual(doc.event.map((e) => e.seq), doc.event.map((_, i) => i + 1));
  const all = [...entries.values()].map((e) => e.data.toString('utf8')).join('\n');
  for (const local of [f.ws, f.userHome, f.home]) assert.ok(!all.includes(local), `no ${local} in the export`);

  // The same session through the baton layout, for comparison.
  const zipBaton = join(f.out, 'baton.zip');
  assert.equal(run(f, ['session', 'export', f.id, '--out', zipBaton]).code, 0);
  const viaBaton = (await readZip(zipBaton)).get('events.jsonl')!.data.toString().trim().split('\n').map((l) => JSON.parse(l));
  const target = join(f.out, 'store2');
  const im = run(f, ['session', 'import', zipPath, '--json'], target);
  assert.equal(im.code, 0, im.stderr);
  assert.equal(im.json.layout, 'world-session-v1');
  assert.equal(im.json.digest, r.json.digest);
  const log = readJsonl(join(target, 'sessions', im.json.id, 'events.jsonl'));
  assert.deepEqual(log.slice(1).map(keep), viaBaton.map(moved).map(keep), 'type, payload, ts, surface and actor of every event');
  assert.ok(log.some((e) => e.type === 'pointer.published'), 'pointer metadata (with its nulls) came through');
  assert.equal(fs.readFileSync(join(target, 'sessions', im.json.id, 'artifacts', 'notes.md'), 'utf8'), '# notes\n');

  // --to writes the layout as a folder; an existing target is refused untouched.
  const dir = join(f.out, 'world-dir');
  const t = run(f, ['session', 'export', f.id, '--format', 'world-session-v1', '--to', dir, '--json']);
  assert.equal(t.code, 0, t.stderr);
  assert.equal(fs.readFileSync(join(dir, base, 'events.toml'), 'utf8'), eventsToml);
  assert.ok(fs.existsSync(join(dir, 'baton-export.json')));
  const fromDir = run(f, ['session', 'import', dir, '--json'], target);
  assert.equal(fromDir.code, 0, fromDir.stderr);
  assert.equal(fromDir.json.digest, t.json.digest);
  assert.deepEqual(readJsonl(join(target, 'sessions', fromDir.json.id, 'events.jsonl')).slice(1).map(keep), viaBaton.map(moved).map(keep), 'the folder imports as the zip does');
  const before = treeHash(dir);
  const again = run(f, ['session', 'export', f.id, '--format', 'world-session-v1', '--to', dir, '--json']);
  assert.equal(again.code, 2);
  assert.equal(again.json.error.code, 'USAGE');
  assert.equal(treeHash(dir), before);
});

test('a corrupt log is refused (WS201) and nothing is written; --force exports the verified prefix and says so', async () => {
  const f = fixture();
  const logPath = join(f.home, 'sessions', f.id, 'events.jsonl');
  const lines = fs.readFileSync(logPath, 'utf8').split('\n');
  lines[2] = lines[2].replace('"seq":3', '"seq":33');
  fs.writeFileSync(logPath, lines.join('\n'));
  const zipPath = join(f.out, 'bad.zip');
  const r = run(f, ['session', 'export', f.id, '--out', zipPath, '--json']);
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'WS201');
  assert.deepEqual(fs.readdirSync(f.out), [], 'no zip and no temporary file');
  const forced = run(f, ['session', 'export', f.id, '--out', zipPath, '--force', '--json']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(forced.json.partial.verified_to_seq, 2);
  const manifest = JSON.parse((await readZip(zipPath)).get('baton-export.json')!.data.toString());
  assert.equal(manifest.partial.corrupt_line, 3);
  assert.equal(manifest.events, 2);
  const target = join(f.out, 'store2');
  const im = run(f, ['session', 'import', zipPath, '--json'], target);
  assert.equal(im.code, 0, im.stderr);
  assert.equal(im.json.events, 2);
});

test('export refuses an existing --out, an unknown --format and an unknown session, changing nothing', () => {
  const f = fixture();
  const zipPath = join(f.out, 'there.zip');
  fs.writeFileSync(zipPath, 'mine');
  const before = treeHash(f.out);
  for (const [args, code] of [
    [['session', 'export', f.id, '--out', zipPath], 'USAGE'],
    [['session', 'export', f.id, '--out', join(f.out, 'x.zip'), '--format', 'tar'], 'USAGE'],
    [['session', 'export', f.id, '--out', join(f.out, 'x.zip'), '--to', join(f.out, 'd')], 'USAGE'],
    [['session', 'export', 'nope', '--out', join(f.out, 'x.zip')], 'WS001'],
  ] as [string[], string][]) {
    const r = run(f, [...args, '--json']);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.json.error.code, code, args.join(' '));
  }
  assert.equal(treeHash(f.out), before);
});

test('an archived session exports its retrospective; the copy is archived too (read-only)', async () => {
  const f = fixture();
  assert.equal(run(f, ['session', 'archive', f.id]).code, 0);
  const zipPath = join(f.out, 'archived.zip');
  assert.equal(run(f, ['session', 'export', f.id, '--out', zipPath]).code, 0);
  const entries = await readZip(zipPath);
  assert.ok(entries.get('retrospective.md')!.data.toString().startsWith('# Retrospective: Annotate the Laozi'));
  const target = join(f.out, 'store2');
  const im = run(f, ['session', 'import', zipPath, '--json'], target);
  assert.equal(im.code, 0, im.stderr);
  assert.ok(fs.existsSync(join(target, 'sessions', im.json.id, 'retrospective.md')));
  const w = run(f, ['session', 'append', im.json.id, '--text', 'more', '--json'], target);
  assert.equal(w.json.error.code, 'WS002');
});

test('frozen start contexts and real prompts go out only when asked, paths rewritten, and come back in', async () => {
  const root = tmpDir();
  dirs.push(root);
  const ws = join(root, 'ws');
  fs.mkdirSync(ws);
  const env = { BATON_HOME: join(root, 'store'), HOME: root, BATON_INSTANCE: 'tester' };
  const sid = randomUUID();
  const hook = (payload: Record<string, unknown>) => baton(['hook', 'claude'], { env, cwd: ws, input: JSON.stringify({ session_id: sid, cwd: ws, ...payload }) });
  assert.equal(hook({ hook_event_name: 'SessionStart', source: 'startup' }).code, 0);
  assert.equal(hook({ hook_event_name: 'UserPromptSubmit', prompt: 'please read the notes' }).code, 0);
  const contexts = fs.readdirSync(join(env.BATON_HOME, 'sessions', sid, 'contexts'));
  assert.equal(contexts.length, 1);
  const plain = join(root, 'plain.zip');
  assert.equal(baton(['session', 'export', sid, '--out', plain], { env, cwd: ws }).code, 0);
  const p = await readZip(plain);
  assert.ok(![...p.keys()].some((k) => k.startsWith('contexts/')));
  assert.ok(!p.get('events.jsonl')!.data.toString().includes('please read the notes'));
  const full = join(root, 'full.zip');
  const r = baton(['session', 'export', sid, '--out', full, '--include-contexts', '--include-prompts', '--json'], { env, cwd: ws });
  assert.equal(r.code, 0, r.stderr);
  const f = await readZip(full);
  const ctx = f.get(`contexts/${contexts[0]}`)!.data.toString();
  for (const local of [ws, root, process.execPath, ROOT]) assert.ok(!ctx.includes(local), `no ${local} in the frozen context`);
  assert.match(ctx, /PUBLISHER=node <baton>\/bin\/baton\.cjs/);
  assert.ok(f.get('events.jsonl')!.data.toString().includes('please read the notes'));
  const target = join(root, 'store2');
  const im = baton(['session', 'import', full, '--json'], { env: { ...env, BATON_HOME: target }, cwd: ws });
  assert.equal(im.code, 0, im.stderr);
  assert.equal(im.json.contexts, 1);
  assert.equal(fs.readFileSync(join(target, 'sessions', im.json.id, 'contexts', contexts[0]), 'utf8'), ctx);
});

test('a changed transcript item (supersedes) keeps citing its first record in the imported copy', () => {
  const root = tmpDir('baton-supersedes-');
  dirs.push(root);
  const home = join(root, 'home');
  const store = join(root, 'store');
  const project = join(root, 'proj');
  fs.mkdirSync(project, { recursive: true });
  const sid = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
  const dir = join(home, '.claude', 'projects', '-proj');
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${sid}.jsonl`);
  const lines = fs.readFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl'), 'utf8').split('\n');
  fs.writeFileSync(transcript, lines.join('\n'));
  const env = { HOME: home, BATON_HOME: store };
  const hook = (ev: Record<string, unknown>) => {
    const r = baton(['hook', 'claude'], { env, cwd: project, input: JSON.stringify({ session_id: sid, cwd: project, transcript_path: transcript, ...ev }) });
    assert.equal(r.code, 0, r.stderr);
  };
  hook({ hook_event_name: 'SessionStart', source: 'startup' });
  hook({ hook_event_name: 'Stop' });
  // The agent rewrote its first request in place (same item id, other text): a superseding record.
  lines[2] = JSON.stringify({ ...JSON.parse(lines[2]), message: { role: 'user', content: 'Write hello into notes.txt (edited)' } });
  fs.writeFileSync(transcript, lines.join('\n'));
  hook({ hook_event_name: 'Stop' });
  const items = (log: any[]) => log.filter((e) => e.type === 'transcript.item');
  const originLog = readJsonl(join(store, 'sessions', sid, 'events.jsonl'));
  const changed = items(originLog).filter((e) => e.payload.supersedes !== undefined);
  assert.equal(changed.length, 1);
  assert.equal(originLog[changed[0].payload.supersedes - 1].payload.item_id, changed[0].payload.item_id);

  const zip = join(root, 's.zip');
  assert.equal(baton(['session', 'export', sid, '--out', zip], { env }).code, 0);
  const other = join(root, 'other');
  const im = baton(['--json', 'session', 'import', zip, '--cwd', project], { env: { ...env, BATON_HOME: other } });
  assert.equal(im.code, 0, im.stderr);
  const copy = readJsonl(join(other, 'sessions', im.json.id, 'events.jsonl'));
  const copied = items(copy).filter((e) => e.payload.supersedes !== undefined);
  assert.equal(copied.length, 1);
  const first = copy[copied[0].payload.supersedes - 1];
  assert.equal(first.type, 'transcript.item');
  assert.equal(first.payload.item_id, copied[0].payload.item_id);
  assert.equal(first.payload.text, 'Write hello into notes.txt, then a plan in plan.md.');
});
