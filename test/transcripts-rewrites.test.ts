// Capture when the agent's file or baton's own bookkeeping is not what the cursor last saw
// (docs/transcripts.md, "Capture from the hooks"): through the real turn-end hook over Claude
// Code's real transcript, every item reaches the session once, with its latest content, whatever
// the agent rewrote in place and however the reads were split; a damaged item index costs a
// re-read of the log, never a duplicate.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, baton, readJsonl, tmpDir } from './helpers.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');
const SID = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
const lines = (): string[] => fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean);

function world() {
  const root = tmpDir('baton-rewrite-');
  const home = join(root, 'home');
  const dir = join(home, '.claude', 'projects', '-work-x');
  fs.mkdirSync(dir, { recursive: true });
  const file = join(dir, `${SID}.jsonl`);
  const hook = (store: string, event = 'Stop') => {
    const r = baton(['hook', 'claude'], { env: { HOME: home, BATON_HOME: store }, input: JSON.stringify({ session_id: SID, hook_event_name: event, transcript_path: file, cwd: '/work/x', source: 'startup' }) });
    assert.equal(r.code, 0, r.stderr);
    return r;
  };
  const items = (store: string) => readJsonl(join(store, 'sessions', SID, 'events.jsonl')).filter((e) => e.type === 'transcript.item');
  return { root, home, file, hook, items, store: join(root, 'store'), ref: join(root, 'ref') };
}

/** The items as a fresh capture of the file as it is now gives them: item id → its text. */
function fresh(w: ReturnType<typeof world>): Map<string, string> {
  w.hook(w.ref, 'SessionStart');
  w.hook(w.ref);
  return new Map(w.items(w.ref).map((e) => [e.payload.item_id, e.payload.text]));
}

/** Each item id's current record (the last one), and no two first records of one id. */
function current(items: any[]): Map<string, string> {
  const firsts = items.filter((e) => e.payload.supersedes === undefined).map((e) => e.payload.item_id);
  assert.equal(new Set(firsts).size, firsts.length, `an item recorded twice without supersedes: ${firsts.join(' ')}`);
  return new Map(items.map((e) => [e.payload.item_id, e.payload.text]));
}

test('a file rewritten in place with the same head and grown past the cursor is read again from the start: no item lost, no half line', () => {
  const w = world();
  const l = lines();
  w.hook(w.store, 'SessionStart');
  fs.writeFileSync(w.file, `${l.slice(0, 40).join('\n')}\n`);
  w.hook(w.store);
  // The agent rewrote it: a long line before the old offset dropped, the rest of the session added (same inode).
  const dropped = l.findIndex((x, i) => i >= 4 && i < 30 && x.length > 4000);
  assert.ok(dropped > 0, 'the fixture has a long line to drop');
  fs.writeFileSync(w.file, `${[...l.slice(0, dropped), ...l.slice(dropped + 1)].join('\n')}\n`);
  const second = w.hook(w.store);
  assert.doesNotMatch(second.stderr, /TR004/, 'no half line read as not JSON');
  w.hook(w.store);
  assert.deepEqual(current(w.items(w.store)), fresh(w));
});

test('an item written more than once in one read is taken once with its last content, superseding what was stored', () => {
  const w = world();
  const user = (uuid: string, text: string) =>
    JSON.stringify({ type: 'user', uuid, timestamp: '2026-12-02T00:38:11.045Z', sessionId: SID, cwd: '/work/x', message: { role: 'user', content: text } });
  const one = 'aaaaaaaa-0000-4000-8000-000000000001';
  const two = 'aaaaaaaa-0000-4000-8000-000000000002';
  w.hook(w.store, 'SessionStart');
  fs.writeFileSync(w.file, '');
  // v1 then v2 of one item in one read: one record, v2.
  fs.appendFileSync(w.file, `${user(one, 'v1')}\n${user(one, 'v2')}\n`);
  w.hook(w.store);
  // A stored; then B and A again in one read: the item is A, as it was (nothing appended).
  fs.appendFileSync(w.file, `${user(two, 'A')}\n`);
  w.hook(w.store);
  fs.appendFileSync(w.file, `${user(two, 'B')}\n${user(two, 'A')}\n`);
  w.hook(w.store);
  // C: a change of a stored item supersedes its record.
  fs.appendFileSync(w.file, `${user(two, 'C')}\n`);
  w.hook(w.store);
  const items = w.items(w.store);
  assert.deepEqual(
    items.map((e) => [e.payload.item_id, e.payload.text, e.payload.supersedes ?? null]),
    [
      [one, 'v2', null],
      [two, 'A', null],
      [two, 'C', items[1].seq],
    ],
  );
  assert.deepEqual(current(items), new Map([[one, 'v2'], [two, 'C']]));
});

test('lines lost from items.v2.idx, or a digest changed in it, then a re-read from the start: no item twice', () => {
  for (const damage of ['lose lines', 'flip a digest'] as const) {
    const w = world();
    w.hook(w.store, 'SessionStart');
    fs.copyFileSync(FIXTURE, w.file);
    w.hook(w.store);
    const before = current(w.items(w.store));
    const tdir = join(w.store, 'sessions', SID, 'transcripts');
    const idx = fs.readFileSync(join(tdir, 'items.v2.idx'), 'utf8').split('\n');
    assert.ok(idx.some((l) => l.startsWith('@ ')), 'the index has its size mark');
    if (damage === 'lose lines') idx.splice(1, 3);
    else idx[1] = idx[1].replace(/ ([0-9a-f])/, (_m, c: string) => ` ${c === '0' ? '1' : '0'}`);
    fs.writeFileSync(join(tdir, 'items.v2.idx'), idx.join('\n'));
    for (const f of fs.readdirSync(tdir)) if (f.endsWith('.cursor.json')) fs.rmSync(join(tdir, f));
    w.hook(w.store);
    const items = w.items(w.store);
    assert.deepEqual(current(items), before, damage);
    assert.equal(items.filter((e) => e.payload.supersedes !== undefined).length, 0, `${damage}: nothing taken for changed`);
    assert.equal(baton(['session', 'verify', SID], { env: { BATON_HOME: w.store } }).code, 0);
  }
});

const CXS = '01a23430-524d-7e42-b941-98c6b1714255';

/** A fake HOME for Codex's rollout of the real fixture (its lines), and its hook. */
function codexWorld(prefix: string) {
  const root = tmpDir(prefix);
  const home = join(root, 'home');
  const file = join(home, '.codex', 'sessions', '2026', '12', '02', `rollout-2026-12-02T00-38-31-${CXS}.jsonl`);
  fs.mkdirSync(join(file, '..'), { recursive: true });
  const src = fs.readFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'codex', 'codex-0.171.0-session.jsonl'), 'utf8').split('\n').filter(Boolean);
  const hook = (store: string, event = 'Stop') => {
    const r = baton(['hook', 'codex'], { env: { HOME: home, BATON_HOME: store }, input: JSON.stringify({ session_id: CXS, hook_event_name: event, transcript_path: file, cwd: '/home/u/proj', source: 'startup', reason: 'other' }) });
    assert.equal(r.code, 0, r.stderr);
  };
  const items = (store: string) => readJsonl(join(store, 'sessions', CXS, 'events.jsonl')).filter((e) => e.type === 'transcript.item');
  return { root, home, file, src, hook, items };
}

test('an item without its own model takes the one in force at its line: the same whether the file is read in one go or two, and a re-read changes nothing', () => {
  const w = codexWorld('baton-model-');
  // The second turn's context names another model.
  const src = w.src.map((l, i) => (i === 25 ? l.replaceAll('"model":"gpt-5"', '"model":"gpt-5-mini"') : l));
  assert.match(src[25], /"type":"turn_context".*"model":"gpt-5-mini"/);
  const models = (store: string) => new Map(w.items(store).filter((e) => e.payload.role === 'assistant').map((e) => [e.payload.item_id, e.payload.model]));
  // Two reads, split before the model changes.
  const split = join(w.root, 'split');
  w.hook(split, 'SessionStart');
  fs.writeFileSync(w.file, `${src.slice(0, 25).join('\n')}\n`);
  w.hook(split);
  fs.appendFileSync(w.file, `${src.slice(25).join('\n')}\n`);
  w.hook(split);
  // One read.
  const whole = join(w.root, 'whole');
  w.hook(whole, 'SessionStart');
  w.hook(whole);
  assert.deepEqual(models(split), models(whole));
  assert.ok([...models(whole).values()].includes('gpt-5') && [...models(whole).values()].includes('gpt-5-mini'), 'both models appear');
  // A torn cursor: the file is read again from the start; nothing is taken for changed.
  const tdir = join(split, 'sessions', CXS, 'transcripts');
  for (const f of fs.readdirSync(tdir)) if (f.endsWith('.cursor.json')) fs.truncateSync(join(tdir, f), 100);
  w.hook(split);
  assert.equal(w.items(split).filter((e) => e.payload.supersedes !== undefined).length, 0);
});

test("Codex's last answer held for its usage line is given out at the session's end and by an import, when the rollout ends without that line", () => {
  const w = codexWorld('baton-held-');
  // Up to the first answer, not its usage line: Codex was killed there.
  const answer = w.src.findIndex((l) => l.includes('"type":"response_item"') && l.includes('Done: notes.txt'));
  assert.ok(answer > 0 && !w.src[answer + 1].includes('"type":"response_item"'));
  fs.writeFileSync(w.file, `${w.src.slice(0, answer + 1).join('\n')}\n`);
  const store = join(w.root, 'store');
  const answers = (s: string) => w.items(s).filter((e) => e.payload.text.includes('Done: notes.txt'));
  w.hook(store, 'SessionStart');
  w.hook(store);
  assert.equal(answers(store).length, 0, 'a turn end waits for the usage line');
  w.hook(store, 'SessionEnd');
  assert.equal(answers(store).length, 1, 'the session end gives it out');
  w.hook(store, 'SessionEnd');
  assert.equal(answers(store).length, 1, 'once');
  const imported = join(w.root, 'imported');
  assert.equal(baton(['history', 'import', 'codex'], { env: { HOME: w.home, BATON_HOME: imported } }).code, 0);
  assert.equal(answers(imported).length, 1, 'an import of the file gives it out');
  // Its usage line half written when the session ends: the end waits for it (not read to the
  // file's end), and the answer comes with its usage once the line is whole.
  const late = join(w.root, 'late');
  const next = w.src[answer + 1];
  fs.writeFileSync(w.file, `${w.src.slice(0, answer + 1).join('\n')}\n${next.slice(0, 40)}`);
  w.hook(late, 'SessionStart');
  w.hook(late, 'SessionEnd');
  assert.equal(answers(late).length, 0, 'a half-written line is no end of the file');
  fs.appendFileSync(w.file, `${next.slice(40)}\n`);
  w.hook(late);
  assert.equal(answers(late).length, 1);
  assert.ok(answers(late)[0].payload.usage, 'with its usage');
});
