// The task pointer end to end through the real binary: `baton hook claude` for the three
// hook events, `baton pointer publish` for the CAS (pointer.md, seed 000's typical sequence).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const SID = '7d3c1a2b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
const GEN_RE = /^g-[0-9a-f]{32}$/;

function paths(home: string) {
  const dir = join(home, 'sessions', SID);
  return { dir, state: join(dir, 'state.json'), journal: join(dir, 'journal.jsonl'), events: join(dir, 'events.jsonl') };
}

function hook(home: string, fields: Record<string, unknown>) {
  return baton(['hook', 'claude'], { home, input: JSON.stringify({ session_id: SID, cwd: home, transcript_path: '/tmp/t.jsonl', ...fields }) });
}
const prompt = (home: string) => hook(home, { hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
const start = (home: string, source: string) => hook(home, { hook_event_name: 'SessionStart', source });

function contextOf(r: { json: any }): string {
  return r.json?.hookSpecificOutput?.additionalContext ?? '';
}

function fields(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m && !(m[1] in out)) out[m[1]] = m[2];
  }
  return out;
}

function publish(home: string, req: Record<string, unknown>) {
  return baton(['pointer', 'publish'], { home, input: JSON.stringify({ schema_version: 3, session_id: SID, task_id: TASK, target_status: 'CLEAN', ...req }) });
}

const readState = (home: string) => JSON.parse(fs.readFileSync(paths(home).state, 'utf8'));
const journal = (home: string) => (fs.existsSync(paths(home).journal) ? readJsonl(paths(home).journal) : []);
const pointerEvents = (home: string) => readJsonl(paths(home).events).filter((e) => e.type.startsWith('pointer.'));

test('the seed typical sequence: ABSENT → CLEARED fence → CLEAN → DIRTY → DIRTY no-op → CLEAN → CLEARED with a new generation', () => {
  const home = tmpDir();
  const p = paths(home);
  const text1 = 'Goal: finish the example\nNext: run the checks';

  // ABSENT/0: no state yet.
  assert.equal(fs.existsSync(p.state), false);

  // First prompt → the CLEARED fence, new generation, revision 1, bootstrap context.
  const r1 = prompt(home);
  assert.equal(r1.code, 0, r1.stderr);
  const s1 = readState(home);
  assert.deepEqual(Object.keys(s1), ['schema_version', 'session_id', 'generation', 'revision', 'status', 'task_id', 'pointer_text', 'updated_at']);
  assert.equal(s1.status, 'CLEARED');
  assert.equal(s1.revision, 1);
  assert.match(s1.generation, GEN_RE);
  assert.equal(s1.task_id, null);
  assert.equal(s1.pointer_text, null);
  assert.match(s1.updated_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const g1 = s1.generation;
  const c1 = contextOf(r1);
  assert.equal(c1.split('\n')[0], 'TASK_POINTER_V2_BOOTSTRAP');
  const f1 = fields(c1);
  assert.equal(f1.STATUS, 'CLEARED');
  assert.equal(f1.GENERATION, g1);
  assert.equal(f1.REVISION, '1');
  assert.equal(f1.SESSION_ID, SID);
  assert.match(f1.PUBLISHER, /pointer publish$/);
  assert.equal(f1.RECOVERY_MODE, 'CONTINUE');
  // The bootstrap's request form carries a fresh task id (there is no TASK_ID line yet).
  assert.match(f1.INSTRUCTION, /"expected_generation":"<GENERATION>","expected_revision":<REVISION>,"task_id":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"/);
  let j = journal(home);
  assert.equal(j.length, 1);
  assert.deepEqual(j[0], {
    journal_version: 1,
    session_id: SID,
    event: 'CLEARED',
    revision: 1,
    generation: g1,
    status: 'CLEARED',
    task_id: null,
    pointer_digest: null,
    pointer_byte_count: null,
    previous_revision: 0,
    previous_status: null,
    recorded_at: j[0].recorded_at,
  });

  // publish(g1, 1) → CLEAN/g1/2.
  const r2 = publish(home, { expected_generation: g1, expected_revision: 1, pointer_text: text1 });
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(r2.json, { ok: true, session_id: SID, generation: g1, revision: 2, status: 'CLEAN', journal_appended: true, journal_error: null });
  const s2 = readState(home);
  assert.equal(s2.status, 'CLEAN');
  assert.equal(s2.revision, 2);
  assert.equal(s2.generation, g1);
  assert.equal(s2.task_id, TASK);
  assert.equal(s2.pointer_text, text1);
  j = journal(home);
  assert.equal(j.length, 2);
  assert.equal(j[1].event, 'PUBLISH');
  assert.equal(j[1].status, 'CLEAN');
  assert.equal(j[1].previous_revision, 1);
  assert.equal(j[1].previous_status, 'CLEARED');
  assert.equal(j[1].pointer_byte_count, Buffer.byteLength(text1));
  assert.match(j[1].pointer_digest, /^[0-9a-f]{64}$/);

  // Next prompt → DIRTY/g1/3, a PUBLISH/DIRTY record with the same task and digest.
  const r3 = prompt(home);
  assert.equal(r3.code, 0, r3.stderr);
  const s3 = readState(home);
  assert.deepEqual([s3.status, s3.generation, s3.revision, s3.task_id, s3.pointer_text], ['DIRTY', g1, 3, TASK, text1]);
  j = journal(home);
  assert.equal(j.length, 3);
  assert.deepEqual([j[2].event, j[2].status, j[2].task_id, j[2].pointer_digest, j[2].previous_revision, j[2].previous_status], ['PUBLISH', 'DIRTY', TASK, j[1].pointer_digest, 2, 'CLEAN']);
  const c3 = contextOf(r3);
  assert.equal(c3.split('\n')[0], 'TASK_POINTER_V2');
  const f3 = fields(c3);
  assert.equal(f3.STATUS, 'DIRTY');
  assert.equal(f3.RECOVERY_MODE, 'MERGE_FIRST');
  assert.equal(f3.TASK_ID, TASK);
  assert.equal(f3.JOURNAL_IDENTICAL_TEXT_STREAK, '1');
  assert.equal(f3.NEXT_ACTION, 'MERGE_THEN_REPUBLISH');
  assert.ok(Number(f3.POINTER_AGE_SECONDS) >= 0);
  assert.ok(c3.includes(`POINTER_TEXT_BEGIN\n${text1}\nPOINTER_TEXT_END\n`));

  // Another prompt while DIRTY → no write, no journal line, no event.
  const stateBytes = fs.readFileSync(p.state);
  const journalBytes = fs.readFileSync(p.journal);
  const pointerEventCount = pointerEvents(home).length;
  const r4 = prompt(home);
  assert.equal(r4.code, 0, r4.stderr);
  assert.deepEqual(fs.readFileSync(p.state), stateBytes);
  assert.deepEqual(fs.readFileSync(p.journal), journalBytes);
  assert.equal(pointerEvents(home).length, pointerEventCount);
  // ... and, nothing shown having changed, one short line instead of the block (said once).
  assert.equal(contextOf(r4), 'TASK_POINTER_V2 UNCHANGED STATUS=DIRTY REVISION=3 NEXT_ACTION=MERGE_THEN_REPUBLISH\n');

  // publish(g1, 3) → CLEAN/g1/4.
  const r5 = publish(home, { expected_generation: g1, expected_revision: 3, pointer_text: 'Goal: finish the example\nNext: write the docs' });
  assert.equal(r5.code, 0, r5.stderr);
  assert.equal(r5.json.revision, 4);
  assert.equal(readState(home).status, 'CLEAN');
  assert.equal(journal(home).length, 4);

  // SessionStart(clear) → CLEARED/g2/5 with a new generation, bootstrap context.
  const r6 = start(home, 'clear');
  assert.equal(r6.code, 0, r6.stderr);
  const s6 = readState(home);
  assert.equal(s6.status, 'CLEARED');
  assert.equal(s6.revision, 5);
  assert.match(s6.generation, GEN_RE);
  assert.notEqual(s6.generation, g1);
  j = journal(home);
  assert.equal(j.length, 5);
  assert.deepEqual([j[4].event, j[4].status, j[4].generation, j[4].task_id, j[4].previous_revision, j[4].previous_status], ['CLEARED', 'CLEARED', s6.generation, null, 4, 'CLEAN']);
  assert.equal(contextOf(r6).split('\n')[0], 'TASK_POINTER_V2_BOOTSTRAP');

  // The log holds one pointer event per write, metadata only.
  const evs = pointerEvents(home);
  assert.deepEqual(
    evs.map((e) => [e.type, e.payload.revision, e.payload.status]),
    [
      ['pointer.cleared', 1, 'CLEARED'],
      ['pointer.published', 2, 'CLEAN'],
      ['pointer.published', 3, 'DIRTY'],
      ['pointer.published', 4, 'CLEAN'],
      ['pointer.cleared', 5, 'CLEARED'],
    ],
  );
  // Never the pointer text, in the journal or in the log.
  for (const f of [p.journal, p.events]) {
    const raw = fs.readFileSync(f, 'utf8');
    assert.ok(!raw.includes('finish the example'), `${f} must not hold the pointer text`);
  }
});

test('ABA: a request prepared before a clear fails with STALE_GENERATION after it, changing nothing', () => {
  const home = tmpDir();
  prompt(home);
  const g1 = readState(home).generation;
  assert.equal(publish(home, { expected_generation: g1, expected_revision: 1, pointer_text: 'Goal: a' }).code, 0);
  const prepared = { expected_generation: g1, expected_revision: 2, pointer_text: 'Goal: a\nNext: resurrect me' };
  assert.equal(start(home, 'clear').code, 0);
  const s = readState(home);
  assert.equal(s.revision, 3);
  const before = treeHash(home);
  const r = publish(home, prepared);
  assert.equal(r.code, 2);
  assert.deepEqual(r.json, { ok: false, error: 'STALE_GENERATION', current_generation: s.generation, current_revision: 3 });
  assert.match(r.stderr, /STALE_GENERATION/);
  assert.equal(treeHash(home), before);
  // Even with the revision guessed right, the old generation stays fenced out.
  const r2 = publish(home, { ...prepared, expected_revision: 3 });
  assert.equal(r2.json.error, 'STALE_GENERATION');
  assert.equal(treeHash(home), before);
});

test('the generation is compared before the revision; a right generation with a wrong revision is STALE_REVISION', () => {
  const home = tmpDir();
  prompt(home);
  const g = readState(home).generation;
  const other = `g-${'0'.repeat(32)}`;
  const before = treeHash(home);
  assert.equal(publish(home, { expected_generation: other, expected_revision: 7, pointer_text: 'x' }).json.error, 'STALE_GENERATION');
  const r = publish(home, { expected_generation: g, expected_revision: 7, pointer_text: 'x' });
  assert.equal(r.code, 2);
  assert.deepEqual(r.json, { ok: false, error: 'STALE_REVISION', current_generation: g, current_revision: 1 });
  assert.equal(publish(home, { expected_generation: 'ABSENT', expected_revision: 0, pointer_text: 'x' }).json.error, 'STALE_GENERATION');
  assert.equal(treeHash(home), before);
});

test('a repeated prompt while CLEARED is a no-op (the fence stays)', () => {
  const home = tmpDir();
  prompt(home);
  const bytes = fs.readFileSync(paths(home).state);
  const j = fs.readFileSync(paths(home).journal);
  const r = prompt(home);
  assert.equal(r.code, 0);
  assert.deepEqual(fs.readFileSync(paths(home).state), bytes);
  assert.deepEqual(fs.readFileSync(paths(home).journal), j);
  assert.match(contextOf(r), /^TASK_POINTER_V2_BOOTSTRAP UNCHANGED STATUS=CLEARED REVISION=1 NEXT_ACTION=CONTINUE\n$/);
});

test('PreCompact changes nothing; SessionStart startup, resume and compact inject the current pointer', () => {
  const home = tmpDir();
  prompt(home);
  const g = readState(home).generation;
  publish(home, { expected_generation: g, expected_revision: 1, pointer_text: 'Goal: keep going\nNext: step 2' });
  const before = fs.readFileSync(paths(home).state);
  const jBefore = fs.readFileSync(paths(home).journal);
  const pc = hook(home, { hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' });
  assert.equal(pc.code, 0, pc.stderr);
  assert.deepEqual(fs.readFileSync(paths(home).state), before);
  assert.deepEqual(fs.readFileSync(paths(home).journal), jBefore);
  for (const source of ['startup', 'resume', 'compact']) {
    const r = start(home, source);
    assert.equal(r.code, 0, r.stderr);
    const c = contextOf(r);
    assert.equal(c.split('\n')[0], 'TASK_POINTER_V2', source);
    const f = fields(c);
    assert.equal(f.STATUS, 'CLEAN');
    assert.equal(f.RECOVERY_MODE, 'CONTINUE');
    assert.equal(f.NEXT_ACTION, 'CONTINUE');
    assert.equal(f.GENERATION, g);
    assert.equal(f.REVISION, '2');
    assert.ok(c.includes('POINTER_TEXT_BEGIN\nGoal: keep going\nNext: step 2\nPOINTER_TEXT_END'));
    assert.ok(Buffer.byteLength(c) <= 10000);
    assert.deepEqual(fs.readFileSync(paths(home).state), before);
  }
});

test('a v2 state is read as LEGACY_V2 and the first prompt writes its first v3 state with a new generation', () => {
  const home = tmpDir();
  prompt(home); // creates the session
  const v2 = { schema_version: 2, session_id: SID, revision: 7, status: 'CLEAN', task_id: TASK, pointer_text: 'Goal: old\r\nNext: upgrade', updated_at: '2026-01-01T00:00:00Z' };
  fs.writeFileSync(paths(home).state, JSON.stringify(v2));
  const show = baton(['--json', 'pointer', 'show', SID], { home });
  assert.equal(show.code, 0, show.stderr);
  assert.equal(show.json.generation, 'LEGACY_V2');
  assert.equal(show.json.revision, 7);
  assert.equal(show.json.pointer_text, 'Goal: old\nNext: upgrade');
  const started = start(home, 'startup');
  assert.equal(fields(contextOf(started)).GENERATION, 'LEGACY_V2');
  const r = prompt(home);
  assert.equal(r.code, 0, r.stderr);
  const s = readState(home);
  assert.equal(s.schema_version, 3);
  assert.match(s.generation, GEN_RE);
  assert.equal(s.revision, 8);
  assert.equal(s.status, 'DIRTY');
  assert.equal(s.pointer_text, 'Goal: old\nNext: upgrade');
  const last = journal(home).at(-1);
  assert.deepEqual([last.revision, last.previous_revision, last.previous_status, last.generation], [8, 7, 'CLEAN', s.generation]);
});

test('a v2 state can be published over with expected_generation LEGACY_V2, starting a new generation', () => {
  const home = tmpDir();
  prompt(home);
  fs.writeFileSync(paths(home).state, JSON.stringify({ schema_version: 2, session_id: SID, revision: 3, status: 'CLEAN', task_id: TASK, pointer_text: 'old', updated_at: '2026-01-01T00:00:00Z' }));
  const r = publish(home, { expected_generation: 'LEGACY_V2', expected_revision: 3, pointer_text: 'new' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.json.generation, GEN_RE);
  assert.equal(r.json.revision, 4);
  assert.equal(readState(home).schema_version, 3);
});

test('SessionStart startup with a corrupt state injects UNKNOWN_RECOVERY and goes on; compact and clear stop', () => {
  const home = tmpDir();
  prompt(home);
  fs.writeFileSync(paths(home).state, '{"schema_version":3,');
  const r = start(home, 'startup');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(contextOf(r).split('\n')[0], 'UNKNOWN_RECOVERY:STATE_CORRUPT');
  for (const source of ['compact', 'clear']) {
    const s = start(home, source);
    assert.notEqual(s.code, 2);
    assert.equal(s.json?.continue, false, `${source}: ${s.stdout}`);
    assert.match(s.json?.stopReason ?? '', /TASK_POINTER_RECOVERY_REQUIRED/);
  }
  assert.equal(fs.readFileSync(paths(home).state, 'utf8'), '{"schema_version":3,');
});

test('a prompt whose DIRTY write fails blocks: exit 2, block JSON, TASK_POINTER_V2:<CODE> on stderr, old state intact', () => {
  const home = tmpDir();
  prompt(home);
  const g = readState(home).generation;
  // A pointer text over the file-size limit set below: the DIRTY state cannot be written.
  const long = `Goal: ${'x'.repeat(3000)}`;
  assert.equal(publish(home, { expected_generation: g, expected_revision: 1, pointer_text: long }).code, 0);
  const p = paths(home);
  const state = fs.readFileSync(p.state);
  const journalBytes = fs.readFileSync(p.journal);
  const pointerEventCount = pointerEvents(home).length;
  // Tests run as root, where a read-only folder still takes writes; RLIMIT_FSIZE binds root too.
  const r = spawnSync('sh', ['-c', `ulimit -f 2; exec "${process.execPath}" "${BIN}" hook claude`], {
    input: JSON.stringify({ session_id: SID, cwd: home, hook_event_name: 'UserPromptSubmit', prompt: 'go on' }),
    encoding: 'utf8',
    env: { ...process.env, BATON_HOME: home, NO_COLOR: '1' },
  });
  assert.equal(r.status, 2, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.decision, 'block');
  assert.match(out.reason, /TASK_POINTER_V2:WRITE_FAILED/);
  assert.match(r.stderr, /TASK_POINTER_V2:WRITE_FAILED/);
  assert.deepEqual(fs.readFileSync(p.state), state);
  assert.deepEqual(fs.readFileSync(p.journal), journalBytes);
  assert.equal(pointerEvents(home).length, pointerEventCount);
  assert.deepEqual(
    fs.readdirSync(p.dir).filter((n) => n.endsWith('.tmp')),
    [],
    'the temp file is removed',
  );
});
