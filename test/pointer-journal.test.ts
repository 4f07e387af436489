// journal.jsonl (rotation, invalid lines, a missing journal), `baton pointer report` and
// `--recall` (fields, limits, codes), `baton pointer migrate` (dry run, --apply).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const SID = 'journal-session';
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';

const dirOf = (home: string) => join(home, 'sessions', SID);
const jpath = (home: string) => join(dirOf(home), 'journal.jsonl');

function publish(home: string, text: string | null, expect?: { generation: string; revision: number }) {
  const cur = expect ?? current(home);
  const r = baton(['pointer', 'publish'], {
    home,
    input: JSON.stringify({
      schema_version: 3,
      session_id: SID,
      expected_generation: cur.generation,
      expected_revision: cur.revision,
      task_id: text === null ? null : TASK,
      target_status: text === null ? 'CLEARED' : 'CLEAN',
      pointer_text: text,
    }),
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return r.json;
}

function current(home: string): { generation: string; revision: number } {
  try {
    const s = JSON.parse(fs.readFileSync(join(dirOf(home), 'state.json'), 'utf8'));
    return { generation: s.generation, revision: s.revision };
  } catch {
    return { generation: 'ABSENT', revision: 0 };
  }
}

function reportFields(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line);
    if (m && m[1] !== 'RECORD') out[m[1]] = m[2];
  }
  return out;
}

test('over 524288 bytes the journal is cut to its last 100 lines before the next append', () => {
  const home = tmpDir();
  publish(home, 'Goal: rotate');
  const first = readJsonl(jpath(home))[0];
  const lines: string[] = [];
  for (let i = 0; i < 1300; i++) lines.push(JSON.stringify({ ...first, revision: 1000 + i, pad: 'p'.repeat(300) }));
  fs.appendFileSync(jpath(home), `${lines.join('\n')}\n`);
  assert.ok(fs.statSync(jpath(home)).size > 524288);
  publish(home, 'Goal: rotate\nNext: again');
  const after = fs.readFileSync(jpath(home), 'utf8').split('\n').filter(Boolean);
  assert.equal(after.length, 101);
  assert.deepEqual(after.slice(0, 100), lines.slice(-100));
  assert.equal(JSON.parse(after[100]).revision, 2);
  assert.ok(fs.statSync(jpath(home)).size < 524288);
});

test('unparsable journal lines count in INVALID_LINES and never stop the read; a torn tail stays apart from the next record', () => {
  const home = tmpDir();
  publish(home, 'Goal: a');
  fs.appendFileSync(jpath(home), 'garbage\n{"json":"but not a record"}\n\n{"journal_version":1,"event":"PUB');
  publish(home, 'Goal: b');
  const r = baton(['pointer', 'report', SID], { home });
  assert.equal(r.code, 0, r.stderr);
  const f = reportFields(r.stdout);
  assert.equal(f.JOURNAL_DEPTH, '2');
  assert.equal(f.INVALID_LINES, '3');
  assert.equal(f.REVISION, '2');
  const json = baton(['--json', 'pointer', 'report', SID], { home }).json;
  assert.equal(json.invalid_lines, 3);
  assert.equal(json.journal_depth, 2);
  assert.deepEqual(
    json.records.map((x: any) => x.revision),
    [1, 2],
  );
});

test('a missing journal is depth 0, and the next publish starts it again', () => {
  const home = tmpDir();
  publish(home, 'Goal: a');
  fs.rmSync(jpath(home));
  const r = baton(['pointer', 'report', SID], { home });
  assert.equal(r.code, 0, r.stderr);
  const f = reportFields(r.stdout);
  assert.deepEqual([f.JOURNAL_DEPTH, f.INVALID_LINES, f.REVISION_GAPS, f.STATUS, f.REVISION], ['0', '0', '0', 'CLEAN', '1']);
  publish(home, 'Goal: b');
  assert.equal(readJsonl(jpath(home)).length, 1);
});

test('report prints STATUS, GENERATION, REVISION, AGE_SECONDS, JOURNAL_DEPTH, REVISION_GAPS, INVALID_LINES and the last ten records', () => {
  const home = tmpDir();
  for (let i = 0; i < 12; i++) publish(home, `Goal: step ${i}`);
  // Drop revisions 5 and 6 from the journal: two revisions missing between records.
  const kept = fs
    .readFileSync(jpath(home), 'utf8')
    .split('\n')
    .filter((l) => l && ![5, 6].includes(JSON.parse(l).revision));
  fs.writeFileSync(jpath(home), `${kept.join('\n')}\n`);
  const before = treeHash(home);
  const r = baton(['pointer', 'report', SID], { home });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.deepEqual(
    lines.slice(0, 7).map((l) => l.split('=')[0]),
    ['STATUS', 'GENERATION', 'REVISION', 'AGE_SECONDS', 'JOURNAL_DEPTH', 'REVISION_GAPS', 'INVALID_LINES'],
  );
  const f = reportFields(r.stdout);
  assert.equal(f.REVISION, '12');
  assert.equal(f.JOURNAL_DEPTH, '10');
  assert.equal(f.REVISION_GAPS, '2');
  assert.ok(Number(f.AGE_SECONDS) >= 0);
  const records = lines.filter((l) => l.startsWith('RECORD='));
  assert.equal(records.length, 10);
  assert.equal(JSON.parse(records[9].slice(7)).revision, 12);
  assert.ok(!r.stdout.includes('Goal: step'), 'the report shows no pointer text');
  assert.ok(Buffer.byteLength(r.stdout) <= 10000);
  assert.equal(treeHash(home), before, 'report is read-only');
});

test('a report over 10000 bytes is refused with REPORT_TOO_LARGE', () => {
  const home = tmpDir();
  publish(home, 'Goal: a');
  const rec = readJsonl(jpath(home))[0];
  const big: string[] = [];
  for (let i = 0; i < 10; i++) big.push(JSON.stringify({ ...rec, revision: 100 + i, note: 'n'.repeat(1200) }));
  fs.appendFileSync(jpath(home), `${big.join('\n')}\n`);
  const r = baton(['pointer', 'report', SID], { home });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /REPORT_TOO_LARGE/);
  const j = baton(['--json', 'pointer', 'report', SID], { home });
  assert.equal(j.code, 2);
  assert.equal(j.json.error.code, 'REPORT_TOO_LARGE');
});

test('recall returns the record of a revision; the text only for the current revision, else RECALL_TEXT_UNAVAILABLE', () => {
  const home = tmpDir();
  publish(home, 'Goal: first');
  publish(home, 'Goal: second\nNext: third');
  const old = baton(['pointer', 'report', SID, '--recall', '1'], { home });
  assert.equal(old.code, 0, old.stderr);
  assert.match(old.stdout, /^POINTER_TEXT=RECALL_TEXT_UNAVAILABLE$/m);
  assert.match(old.stdout, /^REASON=journal_stores_metadata_only$/m);
  assert.equal(JSON.parse(/^RECORD=(.*)$/m.exec(old.stdout)![1]).revision, 1);
  assert.ok(!old.stdout.includes('Goal: first'));
  const cur = baton(['pointer', 'report', SID, '--recall', '2'], { home });
  assert.equal(cur.code, 0, cur.stderr);
  assert.ok(cur.stdout.includes('POINTER_TEXT_BEGIN\nGoal: second\nNext: third\nPOINTER_TEXT_END\n'));
  const cj = baton(['--json', 'pointer', 'report', SID, '--recall', '2'], { home }).json;
  assert.equal(cj.pointer_text, 'Goal: second\nNext: third');
  assert.equal(cj.record.revision, 2);
  const oj = baton(['--json', 'pointer', 'report', SID, '--recall', '1'], { home }).json;
  assert.deepEqual([oj.pointer_text, oj.reason], ['RECALL_TEXT_UNAVAILABLE', 'journal_stores_metadata_only']);
  const none = baton(['pointer', 'report', SID, '--recall', '99'], { home });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /RECALL_NOT_FOUND/);
  assert.equal(baton(['pointer', 'report', SID, '--recall', 'x'], { home }).code, 2);
});

test('a recall over 4096 bytes is refused with RECALL_TOO_LARGE', () => {
  const home = tmpDir();
  publish(home, `Goal: ${'w'.repeat(5000)}`);
  const r = baton(['pointer', 'report', SID, '--recall', '1'], { home });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /RECALL_TOO_LARGE/);
  assert.equal(r.stdout, '');
});

test('report on a session with no pointer says ABSENT/0', () => {
  const home = tmpDir();
  publish(home, 'Goal: x');
  fs.rmSync(join(dirOf(home), 'state.json'));
  fs.rmSync(jpath(home));
  const r = baton(['pointer', 'report', SID], { home });
  assert.equal(r.code, 0, r.stderr);
  const f = reportFields(r.stdout);
  assert.deepEqual([f.STATUS, f.GENERATION, f.REVISION, f.AGE_SECONDS, f.JOURNAL_DEPTH], ['ABSENT', 'ABSENT', '0', '-1', '0']);
});

const ENVELOPE = { envelope_version: 1, session_id: 'migrated-1', task_id: TASK.toUpperCase(), text: 'Goal: old\r\nNext: migrate', written_at: '2025-06-01T12:34:56.789Z' };

test('migrate is a dry run by default: it prints the v3 state it would write and writes nothing', () => {
  const home = tmpDir();
  const work = tmpDir();
  const file = join(work, 'pointer.v1.json');
  fs.writeFileSync(file, JSON.stringify(ENVELOPE));
  const before = treeHash(home);
  const r = baton(['pointer', 'migrate', file], { home });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(s), ['schema_version', 'session_id', 'generation', 'revision', 'status', 'task_id', 'pointer_text', 'updated_at']);
  assert.equal(s.schema_version, 3);
  assert.equal(s.session_id, 'migrated-1');
  assert.match(s.generation, /^g-[0-9a-f]{32}$/);
  assert.equal(s.revision, 1);
  assert.equal(s.status, 'CLEAN');
  assert.equal(s.task_id, TASK);
  assert.equal(s.pointer_text, 'Goal: old\nNext: migrate');
  assert.equal(s.updated_at, '2025-06-01T12:34:56Z');
  assert.match(r.stderr, /dry run/);
  assert.equal(treeHash(home), before);
  const j = baton(['--json', 'pointer', 'migrate', file], { home });
  assert.equal(j.json.applied, false);
  assert.equal(treeHash(home), before);
});

test('migrate --apply writes a valid v3 state with its journal record and event; a second apply is STATE_EXISTS', () => {
  const home = tmpDir();
  const work = tmpDir();
  const file = join(work, 'pointer.v1.json');
  fs.writeFileSync(file, JSON.stringify(ENVELOPE));
  const r = baton(['--json', 'pointer', 'migrate', file, '--apply'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.applied, true);
  const dir = join(home, 'sessions', 'migrated-1');
  const s = JSON.parse(fs.readFileSync(join(dir, 'state.json'), 'utf8'));
  assert.deepEqual(s, r.json.state);
  const show = baton(['--json', 'pointer', 'show', 'migrated-1'], { home });
  assert.equal(show.code, 0, show.stderr);
  assert.equal(show.json.generation, s.generation);
  assert.equal(show.json.pointer_text, 'Goal: old\nNext: migrate');
  const rec = readJsonl(join(dir, 'journal.jsonl'));
  assert.equal(rec.length, 1);
  assert.deepEqual([rec[0].event, rec[0].revision, rec[0].previous_revision], ['PUBLISH', 1, 0]);
  const ev = readJsonl(join(dir, 'events.jsonl')).at(-1);
  assert.deepEqual([ev.type, ev.payload.source], ['pointer.published', 'migrate']);
  // The migrated pointer publishes on by CAS like any other.
  const p = baton(['pointer', 'publish'], {
    home,
    input: JSON.stringify({ schema_version: 3, session_id: 'migrated-1', expected_generation: s.generation, expected_revision: 1, task_id: TASK, target_status: 'CLEAN', pointer_text: 'Goal: new' }),
  });
  assert.equal(p.code, 0, p.stderr);
  const before = treeHash(home);
  const again = baton(['pointer', 'migrate', file, '--apply'], { home });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /STATE_EXISTS/);
  assert.equal(treeHash(home), before);
});

test('migrate refuses an invalid envelope with INVALID_ENVELOPE and writes nothing', () => {
  const home = tmpDir();
  const work = tmpDir();
  const file = join(work, 'bad.json');
  const before = treeHash(home);
  for (const bad of [
    JSON.stringify({ ...ENVELOPE, envelope_version: 2 }),
    JSON.stringify({ ...ENVELOPE, extra: 1 }),
    JSON.stringify({ ...ENVELOPE, task_id: 'nope' }),
    JSON.stringify({ ...ENVELOPE, text: '' }),
    JSON.stringify({ ...ENVELOPE, written_at: 'yesterday' }),
    JSON.stringify(ENVELOPE).replace('{', '{"text":"dup",'),
    'not json',
  ]) {
    fs.writeFileSync(file, bad);
    for (const args of [['pointer', 'migrate', file], ['pointer', 'migrate', file, '--apply']]) {
      const r = baton(args, { home });
      assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
      assert.match(r.stderr, /INVALID_ENVELOPE/);
    }
  }
  assert.equal(treeHash(home), before);
});
