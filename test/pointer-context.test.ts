// The pointer aspect in process (injected time and randomness): the context block's fields,
// order and limits, the DIRTY decision fields and NEXT_ACTION, refs after the block, the
// error policy per event, dry runs; plus the pure rules and the strict JSON parser.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { StrictJsonFailure, parseStrictJson } from '../src/core/strict-json.ts';
import { MAX_UNCHANGED_BYTES, renderUnchanged } from '../src/pointer/context.ts';
import type { JournalRecord } from '../src/pointer/journal.ts';
import { pointerAspect, type PointerHookOptions } from '../src/pointer/hook.ts';
import { publish } from '../src/pointer/publish.ts';
import { identicalTextStreak, nextAction, pointerAgeSeconds } from '../src/pointer/rules.ts';
import { newTaskId, readState } from '../src/pointer/state.ts';
import { FsStore, type Writer } from '../src/store/store.ts';
import { tmpDir, treeHash } from './helpers.ts';

const WRITER: Writer = { surface: 'hook:claude', instanceId: 'hook:claude:test', actor: 'system' };
const AGENT: Writer = { surface: 'cli', instanceId: 'cli@test', actor: 'agent' };
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
const T0 = new Date('2026-03-01T10:00:00Z');

function setup(id = 'ctx-session') {
  const home = tmpDir();
  const store = new FsStore(home);
  store.ensure(id, { title: 'ctx', workspace: { cwd: home }, writer: WRITER, createdBy: 'hook:claude' });
  let n = 0;
  const random = (k: number) => {
    n++;
    return Uint8Array.from({ length: k }, (_, i) => (n * 31 + i) & 0xff);
  };
  const opts = (over: Partial<PointerHookOptions> = {}): PointerHookOptions => ({ now: T0, publisherCommand: 'baton --home /x pointer publish', writer: WRITER, randomBytes: random, ...over });
  const pub = (text: string | null, now = T0) => {
    const cur = readState(store.dir(id), id);
    const r = publish(
      store,
      { schema_version: 3, session_id: id, expected_generation: cur.generation, expected_revision: cur.revision, task_id: text === null ? null : TASK, target_status: text === null ? 'CLEARED' : 'CLEAN', pointer_text: text },
      { writer: AGENT, now, randomBytes: random },
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    return r;
  };
  return { home, store, id, opts, pub, dir: store.dir(id) };
}

function keys(block: string): string[] {
  return block
    .split('\n')
    .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l)?.[1])
    .filter((k): k is string => !!k);
}
function field(block: string, k: string): string | undefined {
  return new RegExp(`^${k}=(.*)$`, 'm').exec(block)?.[1];
}

test('the DIRTY block carries every key in order: STATUS … RECOVERY_MODE, TASK_ID, POINTER_AGE_SECONDS, JOURNAL_IDENTICAL_TEXT_STREAK, NEXT_ACTION', () => {
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  s.pub('Goal: g\nNext: n');
  const marked = pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts({ now: new Date(T0.getTime() + 42_000) }));
  // The DIRTY write is a write: updated_at is its time, so the age starts at 0 ...
  assert.equal(field(marked.context!, 'POINTER_AGE_SECONDS'), '0');
  // ... and repeated prompts do not write, so it grows from there.
  const r = pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts({ now: new Date(T0.getTime() + 142_000) }));
  assert.ok(r.context);
  const c = r.context!;
  assert.equal(c.split('\n')[0], 'TASK_POINTER_V2');
  assert.deepEqual(keys(c).slice(0, 11), [
    'STATUS',
    'GENERATION',
    'REVISION',
    'SESSION_ID',
    'PUBLISHER',
    'RECOVERY_MODE',
    'TASK_ID',
    'POINTER_AGE_SECONDS',
    'JOURNAL_IDENTICAL_TEXT_STREAK',
    'NEXT_ACTION',
    'INSTRUCTION',
  ]);
  assert.equal(field(c, 'PUBLISHER'), 'baton --home /x pointer publish');
  assert.equal(field(c, 'POINTER_AGE_SECONDS'), '100');
  assert.equal(field(c, 'NEXT_ACTION'), 'MERGE_THEN_REPUBLISH');
  // The request's form names the fields above instead of repeating their values.
  const form = /(\{"schema_version".*\})\. /.exec(field(c, 'INSTRUCTION')!)![1];
  const filled = form.replace(/<([A-Z_]+)>/g, (_, k) => field(c, k)!);
  assert.deepEqual(JSON.parse(filled), {
    schema_version: 3,
    session_id: s.id,
    expected_generation: field(c, 'GENERATION'),
    expected_revision: 3,
    task_id: TASK,
    target_status: 'CLEAN',
    pointer_text: 'Goal: ...\nNext: ...',
  });
  assert.equal(keys(c).at(-1), 'INSTRUCTION', 'the instruction is the last line: said once');
});

test('NEXT_ACTION: DIRTY and age >= 600 → REPUBLISH_THEN_CONTINUE, before the streak rule', () => {
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  for (let i = 0; i < 3; i++) s.pub('Goal: same');
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  const later = pointerAspect(s.store, s.id, { kind: 'start', source: 'resume' }, s.opts({ now: new Date(T0.getTime() + 600_000) }));
  assert.equal(field(later.context!, 'POINTER_AGE_SECONDS'), '600');
  assert.equal(field(later.context!, 'JOURNAL_IDENTICAL_TEXT_STREAK'), '3');
  assert.equal(field(later.context!, 'NEXT_ACTION'), 'REPUBLISH_THEN_CONTINUE');
  const sooner = pointerAspect(s.store, s.id, { kind: 'start', source: 'resume' }, s.opts({ now: new Date(T0.getTime() + 599_000) }));
  assert.equal(field(sooner.context!, 'NEXT_ACTION'), 'REPUBLISH_WITH_NEW_NEXT_STEP');
});

test('the identical-text streak counts CLEAN publishes only: the prompt hook DIRTY marks in between are skipped', () => {
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  s.pub('Goal: other');
  for (let i = 0; i < 2; i++) {
    s.pub('Goal: same');
    pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts()); // a DIRTY mark with the same digest
  }
  const r = pointerAspect(s.store, s.id, { kind: 'start', source: 'startup' }, s.opts());
  assert.equal(field(r.context!, 'STATUS'), 'DIRTY');
  assert.equal(field(r.context!, 'JOURNAL_IDENTICAL_TEXT_STREAK'), '2');
  assert.equal(field(r.context!, 'NEXT_ACTION'), 'MERGE_THEN_REPUBLISH');
});

test('the streak is exact on a long journal: the hook reads 4 KiB of its tail, then 64 KiB, then the whole file while the streak runs through what it read', () => {
  // [identical CLEAN records written before the real ones, a differing record before them, the size the journal must reach]
  const cases: [number, boolean, (n: number) => boolean][] = [
    [400, false, (n) => n > 65536],
    [40, true, (n) => n > 4096 && n < 65536],
  ];
  for (const [count, fenced, sized] of cases) {
    const s = setup();
    pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
    s.pub('Goal: same');
    pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
    const jpath = join(s.dir, 'journal.jsonl');
    const lines = fs.readFileSync(jpath, 'utf8').trim().split('\n');
    const clean = JSON.parse(lines[1]);
    const other = fenced ? [JSON.stringify({ ...clean, revision: 900, pointer_digest: 'e'.repeat(64) })] : [];
    const many = Array.from({ length: count }, (_, i) => JSON.stringify({ ...clean, revision: 1000 + i }));
    fs.writeFileSync(jpath, `${[...other, ...many, ...lines.slice(1)].join('\n')}\n`);
    assert.ok(sized(fs.statSync(jpath).size), String(fs.statSync(jpath).size));
    const r = pointerAspect(s.store, s.id, { kind: 'start', source: 'resume' }, s.opts());
    assert.equal(field(r.context!, 'JOURNAL_IDENTICAL_TEXT_STREAK'), String(count + 1));
    fs.appendFileSync(jpath, `${JSON.stringify({ ...clean, revision: 2000, pointer_digest: 'f'.repeat(64) })}\n`);
    const r2 = pointerAspect(s.store, s.id, { kind: 'start', source: 'resume' }, s.opts());
    assert.equal(field(r2.context!, 'JOURNAL_IDENTICAL_TEXT_STREAK'), '1');
  }
});

test('the pure rules: age -1 when unparsable, streak 1 when the latest text differs, NEXT_ACTION CONTINUE when not DIRTY', () => {
  assert.equal(pointerAgeSeconds('not a time', T0), -1);
  assert.equal(pointerAgeSeconds(null, T0), -1);
  assert.equal(pointerAgeSeconds('2026-03-01T09:59:00Z', T0), 60);
  const rec = (status: string, digest: string): JournalRecord => ({ event: 'PUBLISH', status, pointer_digest: digest }) as unknown as JournalRecord;
  assert.equal(identicalTextStreak([rec('CLEAN', 'a'), rec('CLEAN', 'b')]), 1);
  assert.equal(identicalTextStreak([rec('CLEAN', 'a'), rec('CLEAN', 'a'), rec('DIRTY', 'a'), rec('CLEAN', 'a')]), 3);
  assert.equal(identicalTextStreak([]), 0);
  assert.equal(nextAction('CLEAN', 9999, 9), 'CONTINUE');
  assert.equal(nextAction('CLEARED', 9999, 9), 'CONTINUE');
  assert.equal(nextAction('DIRTY', -1, 0), 'MERGE_THEN_REPUBLISH');
  assert.equal(nextAction('DIRTY', 600, 3), 'REPUBLISH_THEN_CONTINUE');
  assert.equal(nextAction('DIRTY', 10, 3), 'REPUBLISH_WITH_NEW_NEXT_STEP');
});

test('the block stays within 10000 bytes with the largest text, a 128-character session id and refs', () => {
  const id = `s${'x'.repeat(127)}`;
  const s = setup(id);
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  s.pub('€'.repeat(2730) + 'ab'); // 8192 UTF-8 bytes
  let budget = -1;
  const r = pointerAspect(
    s.store,
    s.id,
    { kind: 'start', source: 'startup' },
    s.opts({
      renderRefs: (b) => {
        budget = b;
        return 'REF'.repeat(Math.floor(b / 3));
      },
    }),
  );
  const c = r.context!;
  assert.ok(budget >= 0);
  assert.ok(Buffer.byteLength(c) <= 10000, `${Buffer.byteLength(c)} bytes`);
  assert.ok(c.includes(`POINTER_TEXT_BEGIN\n${'€'.repeat(2730)}ab\nPOINTER_TEXT_END`));
  // Refs that ignore the budget are left out rather than overflow the block.
  const over = pointerAspect(s.store, s.id, { kind: 'start', source: 'startup' }, s.opts({ renderRefs: () => 'R'.repeat(20000) }));
  assert.ok(Buffer.byteLength(over.context!) <= 10000);
  assert.ok(!over.context!.includes('RRRR'));
});

test('without a viewer, refs are appended after the pointer block at start, not on a prompt', () => {
  const s = setup();
  let calls = 0;
  const renderRefs = (b: number) => {
    calls++;
    return `<ref budget="${b}">x</ref>`;
  };
  const p = pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts({ renderRefs }));
  assert.equal(calls, 0);
  assert.ok(!p.context!.includes('<ref'));
  const st = pointerAspect(s.store, s.id, { kind: 'start', source: 'startup' }, s.opts({ renderRefs }));
  assert.equal(calls, 1);
  const idx = st.context!.indexOf('<ref');
  assert.ok(idx > st.context!.indexOf('INSTRUCTION='));
});

test('SessionStart fork or an unknown source injects like startup; clear on an absent state writes the fence', () => {
  const s = setup();
  const before = treeHash(s.home);
  for (const source of ['fork', 'something-new']) {
    const r = pointerAspect(s.store, s.id, { kind: 'start', source }, s.opts());
    assert.equal(r.context!.split('\n')[0], 'TASK_POINTER_V2_BOOTSTRAP');
    assert.equal(field(r.context!, 'STATUS'), 'ABSENT');
    assert.equal(field(r.context!, 'GENERATION'), 'ABSENT');
    assert.equal(field(r.context!, 'REVISION'), '0');
  }
  assert.equal(treeHash(s.home), before);
  const c = pointerAspect(s.store, s.id, { kind: 'start', source: 'clear' }, s.opts());
  const st = readState(s.dir, s.id);
  assert.deepEqual([st.status, st.revision], ['CLEARED', 1]);
  assert.equal(field(c.context!, 'GENERATION'), st.generation);
});

test('every clear starts a new generation, even over a CLEARED state', () => {
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  const g1 = readState(s.dir, s.id).generation;
  pointerAspect(s.store, s.id, { kind: 'start', source: 'clear' }, s.opts());
  const after = readState(s.dir, s.id);
  assert.equal(after.revision, 2);
  assert.notEqual(after.generation, g1);
});

test('PreCompact changes nothing; a trigger other than manual or auto is an ordinary failure', () => {
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  const before = treeHash(s.home);
  assert.deepEqual(pointerAspect(s.store, s.id, { kind: 'pre-compact', trigger: 'manual' }, s.opts()), {});
  assert.deepEqual(pointerAspect(s.store, s.id, { kind: 'pre-compact', trigger: 'auto' }, s.opts()), {});
  const bad = pointerAspect(s.store, s.id, { kind: 'pre-compact', trigger: '' }, s.opts());
  assert.equal(bad.failure?.code, 'INVALID_HOOK_INPUT');
  assert.equal(treeHash(s.home), before);
});

test('a dry run decides and renders but writes nothing (BATON_VERIFY)', () => {
  const s = setup();
  const before = treeHash(s.home);
  const r = pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts({ dryRun: true }));
  assert.equal(r.planned?.length, 1);
  assert.equal(r.planned![0].status, 'CLEARED');
  assert.equal(r.context!.split('\n')[0], 'TASK_POINTER_V2_BOOTSTRAP');
  const c = pointerAspect(s.store, s.id, { kind: 'start', source: 'clear' }, s.opts({ dryRun: true }));
  assert.equal(c.planned?.length, 1);
  assert.equal(treeHash(s.home), before);
});

test('a busy session mutex on the prompt is LOCK_TIMEOUT and blocks, changing nothing', () => {
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  s.pub('Goal: g');
  const mutex = join(s.dir, '.mutex');
  fs.writeFileSync(mutex, `${process.pid} ${hostname()} ${Date.now()} held`);
  try {
    const state = fs.readFileSync(join(s.dir, 'state.json'));
    const r = pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
    assert.equal(r.block?.code, 'LOCK_TIMEOUT');
    assert.match(r.block!.reason, /^TASK_POINTER_V2:LOCK_TIMEOUT/);
    assert.equal(r.context, undefined);
    assert.deepEqual(fs.readFileSync(join(s.dir, 'state.json')), state);
  } finally {
    fs.rmSync(mutex);
  }
});

test('a corrupt state on the prompt blocks with STATE_CORRUPT; PreCompact still changes nothing', () => {
  const s = setup();
  fs.writeFileSync(join(s.dir, 'state.json'), '{"schema_version":3,"session_id":"other"}');
  const r = pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts());
  assert.equal(r.block?.code, 'STATE_CORRUPT');
  assert.deepEqual(pointerAspect(s.store, s.id, { kind: 'pre-compact', trigger: 'auto' }, s.opts()), {});
});

test('generations and task ids come from the injected randomness', () => {
  const fixed = (k: number) => new Uint8Array(k).fill(0xab);
  assert.equal(newTaskId(fixed), 'abababab-abab-4bab-abab-abababababab');
  const s = setup();
  pointerAspect(s.store, s.id, { kind: 'prompt' }, s.opts({ randomBytes: fixed }));
  assert.equal(readState(s.dir, s.id).generation, `g-${'ab'.repeat(16)}`);
});

test('the strict JSON parser refuses duplicates, comments, trailing commas and trailing data; keeps __proto__ as a key', () => {
  assert.deepEqual(parseStrictJson(' {"a":[1,2.5e3,-0.5,true,false,null],"b":{"c":"\\u00e9\\n"}} '), { a: [1, 2500, -0.5, true, false, null], b: { c: 'é\n' } });
  const o = parseStrictJson('{"__proto__":1}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(o, '__proto__')?.value, 1);
  const kind = (s: string) => {
    try {
      parseStrictJson(s);
      return 'ok';
    } catch (e) {
      assert.ok(e instanceof StrictJsonFailure);
      return e.failure.kind;
    }
  };
  assert.equal(kind('{"a":1,"a":1}'), 'DUPLICATE_FIELD');
  assert.equal(kind('{"x":{"a":1,"\\u0061":2}}'), 'DUPLICATE_FIELD');
  for (const bad of ['{"a":1,}', '[1,]', '{"a":1} x', '// c\n{}', '{a:1}', "{'a':1}", '{"a":01}', '{"a":.5}', '{"a":NaN}', '"\u0001"', '{"a":"\\x"}', '', '[', '{"a"}', '1e999']) {
    assert.equal(kind(bad), 'INVALID_JSON', JSON.stringify(bad));
  }
  assert.equal(kind('['.repeat(100) + ']'.repeat(100)), 'INVALID_JSON');
});

test('said once: the block stays under 1 KB in the common case (a two-line text, an installed baton under a home folder), and the UNCHANGED line under 300 bytes', () => {
  const s = setup('0b6e1c9a-3f0e-4c55-a0a4-4d8f2f0b9c11');
  const publisherCommand = '/usr/bin/node /usr/local/lib/node_modules/baton/bin/baton.cjs --home /home/someone/.baton pointer publish';
  const o = s.opts({ publisherCommand });
  const boot = pointerAspect(s.store, s.id, { kind: 'prompt' }, o).context!;
  s.pub('Goal: say the pointer once\nNext: measure the bytes of a 50-prompt session');
  const dirty = pointerAspect(s.store, s.id, { kind: 'prompt' }, o).context!;
  s.pub('Goal: make the hook say the pointer once\nNext: write the docs');
  const clean = pointerAspect(s.store, s.id, { kind: 'start', source: 'resume' }, o).context!;
  for (const [name, block] of [['bootstrap', boot], ['DIRTY', dirty], ['CLEAN', clean]]) {
    assert.ok(Buffer.byteLength(block) < 1024, `${name}: ${Buffer.byteLength(block)} bytes\n${block}`);
  }
  // With a viewer, the repeated prompt gets the one line; at most 300 bytes even at the longest values.
  const viewer = s.opts({ publisherCommand, viewer: 'claude.x' });
  pointerAspect(s.store, s.id, { kind: 'prompt' }, viewer);
  const line = pointerAspect(s.store, s.id, { kind: 'prompt' }, viewer).context!;
  assert.match(line, /^TASK_POINTER_V2 UNCHANGED STATUS=DIRTY REVISION=\d+ NEXT_ACTION=MERGE_THEN_REPUBLISH\n$/);
  const longest = renderUnchanged({ ...readState(s.dir, s.id), status: 'DIRTY', revision: Number.MAX_SAFE_INTEGER }, 'REPUBLISH_WITH_NEW_NEXT_STEP');
  assert.ok(Buffer.byteLength(longest) <= MAX_UNCHANGED_BYTES, longest);
});
