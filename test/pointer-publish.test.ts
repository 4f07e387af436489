// `baton pointer publish`: every request rejection (INVALID_REQUEST and its details),
// receipts and exit codes, nullity rules, text normalisation and limits, a publish that
// creates its session, STATE_CORRUPT, the journal failure that never rolls back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const SID = 'pub-session';
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';

function request(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { schema_version: 3, session_id: SID, expected_generation: 'ABSENT', expected_revision: 0, task_id: TASK, target_status: 'CLEAN', pointer_text: 'Goal: g\nNext: n', ...over };
}

const publish = (home: string, input: string | Buffer) => baton(['pointer', 'publish'], { home, input });
const stateOf = (home: string) => JSON.parse(fs.readFileSync(join(home, 'sessions', SID, 'state.json'), 'utf8'));

/** A home with a published CLEAN state at revision 1. */
function seeded(): { home: string; generation: string } {
  const home = tmpDir();
  const r = publish(home, JSON.stringify(request()));
  assert.equal(r.code, 0, r.stderr);
  return { home, generation: r.json.generation };
}

test('the first publish to an unknown session creates it (created_by cli) and writes revision 1 with a new generation', () => {
  const home = tmpDir();
  const r = publish(home, JSON.stringify(request()));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.ok, true);
  assert.match(r.json.generation, /^g-[0-9a-f]{32}$/);
  assert.equal(r.json.revision, 1);
  const created = readJsonl(join(home, 'sessions', SID, 'events.jsonl'))[0];
  assert.equal(created.type, 'session.created');
  assert.equal(created.payload.created_by, 'cli');
});

test('a refused publish to an unknown session creates nothing', () => {
  const home = tmpDir();
  const before = treeHash(home);
  const r = publish(home, JSON.stringify(request({ expected_generation: `g-${'a'.repeat(32)}`, expected_revision: 4 })));
  assert.equal(r.code, 2);
  assert.deepEqual(r.json, { ok: false, error: 'STALE_GENERATION', current_generation: 'ABSENT', current_revision: 0 });
  assert.equal(treeHash(home), before);
});

test('every request rejection leaves state.json byte-identical, appends nothing and names its detail', () => {
  const { home, generation } = seeded();
  const ok = (over: Record<string, unknown>) => JSON.stringify(request({ expected_generation: generation, expected_revision: 1, ...over }));
  const missing = request({ expected_generation: generation, expected_revision: 1 });
  delete missing.task_id;
  const cases: [string, string | Buffer, string, string?][] = [
    ['too large', ok({ pointer_text: 'x'.repeat(12300) }), 'REQUEST_TOO_LARGE'],
    ['not UTF-8', Buffer.concat([Buffer.from('{"schema_version":3,"pointer_text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), 'INVALID_UTF8'],
    ['not JSON', '{"schema_version":3,}', 'INVALID_JSON'],
    ['empty input', '', 'INVALID_JSON'],
    ['a comment', `/* hi */${ok({})}`, 'INVALID_JSON'],
    ['two documents', `${ok({})}\n${ok({})}`, 'INVALID_JSON'],
    ['an array', '[1,2]', 'NOT_AN_OBJECT'],
    ['a string', '"hello"', 'NOT_AN_OBJECT'],
    ['duplicate key', ok({}).replace('{', '{"target_status":"CLEARED",'), 'DUPLICATE_FIELD', 'target_status'],
    ['duplicate key by escape', ok({}).replace('{', '{"\\u0074ask_id":null,'), 'DUPLICATE_FIELD', 'task_id'],
    ['unknown field', ok({ extra: 1 }), 'UNKNOWN_FIELD', 'extra'],
    ['missing field', JSON.stringify(missing), 'MISSING_FIELD', 'task_id'],
    ['schema_version 2', ok({ schema_version: 2 }), 'INVALID_FIELD:schema_version'],
    ['bad session id', ok({ session_id: '../etc' }), 'INVALID_FIELD:session_id'],
    ['bad generation', ok({ expected_generation: 'g-XYZ' }), 'INVALID_FIELD:expected_generation'],
    ['upper-case generation', ok({ expected_generation: `g-${'A'.repeat(32)}` }), 'INVALID_FIELD:expected_generation'],
    ['negative revision', ok({ expected_revision: -1 }), 'INVALID_FIELD:expected_revision'],
    ['fractional revision', ok({ expected_revision: 1.5 }), 'INVALID_FIELD:expected_revision'],
    ['string revision', ok({ expected_revision: '1' }), 'INVALID_FIELD:expected_revision'],
    ['bad status', ok({ target_status: 'DONE' }), 'INVALID_FIELD:target_status'],
    ['upper-case UUID', ok({ task_id: TASK.toUpperCase() }), 'INVALID_FIELD:task_id'],
    ['UUID v1', ok({ task_id: '5f0c1d0e-8a4b-1c2d-9e1f-0a1b2c3d4e5f' }), 'INVALID_FIELD:task_id'],
    ['CLEAN without task', ok({ task_id: null }), 'INVALID_FIELD:task_id'],
    ['CLEAN without text', ok({ pointer_text: null }), 'INVALID_FIELD:pointer_text'],
    ['empty text', ok({ pointer_text: '' }), 'INVALID_FIELD:pointer_text'],
    ['text over 8192 bytes', ok({ pointer_text: 'é'.repeat(4097) }), 'INVALID_FIELD:pointer_text'],
    ['lone surrogate', ok({}).replace('"Goal: g', '"\\ud800Goal: g'), 'INVALID_FIELD:pointer_text'],
    ['CLEARED with a task', ok({ target_status: 'CLEARED', pointer_text: null }), 'INVALID_FIELD:task_id'],
    ['CLEARED with a text', ok({ target_status: 'CLEARED', task_id: null }), 'INVALID_FIELD:pointer_text'],
  ];
  const before = treeHash(home);
  const stateBytes = fs.readFileSync(join(home, 'sessions', SID, 'state.json'));
  for (const [name, input, detail, field] of cases) {
    const r = publish(home, input);
    assert.equal(r.code, 2, `${name}: ${r.stdout} ${r.stderr}`);
    assert.equal(r.json?.ok, false, name);
    assert.equal(r.json.error, 'INVALID_REQUEST', name);
    assert.equal(r.json.detail, detail, name);
    if (field) assert.equal(r.json.field, field, name);
    assert.match(r.stderr, new RegExp(`INVALID_REQUEST ${detail}`), name);
    assert.equal(treeHash(home), before, `${name}: nothing on disk changed`);
  }
  assert.deepEqual(fs.readFileSync(join(home, 'sessions', SID, 'state.json')), stateBytes);
});

test('CRLF and CR become LF, and the 8192-byte limit applies to the normalised text', () => {
  const { home, generation } = seeded();
  const text = `${'a'.repeat(8000)}${'\r\n'.repeat(96)}b\rc`; // 8196 raw bytes, 8099 after normalisation
  const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1, pointer_text: text })));
  assert.equal(r.code, 0, r.stderr);
  const s = stateOf(home);
  assert.equal(s.pointer_text, `${'a'.repeat(8000)}${'\n'.repeat(96)}b\nc`);
  const last = readJsonl(join(home, 'sessions', SID, 'journal.jsonl')).at(-1);
  assert.equal(last.pointer_byte_count, 8099);
  const exact = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 2, pointer_text: 'é'.repeat(4096) })));
  assert.equal(exact.code, 0, exact.stderr);
});

test('a CLEARED publish writes null task and text, a new generation and a CLEARED journal record', () => {
  const { home, generation } = seeded();
  const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1, target_status: 'CLEARED', task_id: null, pointer_text: null })));
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual(r.json.generation, generation);
  assert.equal(r.json.status, 'CLEARED');
  const s = stateOf(home);
  assert.deepEqual([s.status, s.task_id, s.pointer_text, s.revision], ['CLEARED', null, null, 2]);
  const last = readJsonl(join(home, 'sessions', SID, 'journal.jsonl')).at(-1);
  assert.deepEqual([last.event, last.pointer_digest, last.pointer_byte_count], ['CLEARED', null, null]);
  const ev = readJsonl(join(home, 'sessions', SID, 'events.jsonl')).at(-1);
  assert.equal(ev.type, 'pointer.cleared');
});

test('a CLEAN publish keeps the generation; a DIRTY publish is accepted too', () => {
  const { home, generation } = seeded();
  const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1, target_status: 'DIRTY' })));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.generation, generation);
  assert.equal(r.json.status, 'DIRTY');
});

test('a corrupt state.json refuses with STATE_CORRUPT and stays as it was', () => {
  const { home, generation } = seeded();
  const path = join(home, 'sessions', SID, 'state.json');
  for (const bad of ['not json', '{"schema_version":3}', JSON.stringify({ ...stateOf(home), extra: 1 }), JSON.stringify({ ...stateOf(home), session_id: 'other' })]) {
    fs.writeFileSync(path, bad);
    const before = treeHash(home);
    const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1 })));
    assert.equal(r.code, 2);
    assert.equal(r.json.error, 'STATE_CORRUPT', bad);
    assert.equal(treeHash(home), before);
  }
});

test('a journal that cannot be appended to does not roll the state back: journal_appended false, JOURNAL_APPEND_FAILED', () => {
  const { home, generation } = seeded();
  const jpath = join(home, 'sessions', SID, 'journal.jsonl');
  fs.rmSync(jpath);
  fs.mkdirSync(jpath);
  const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1, pointer_text: 'next' })));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json, { ok: true, session_id: SID, generation, revision: 2, status: 'CLEAN', journal_appended: false, journal_error: 'JOURNAL_APPEND_FAILED' });
  assert.equal(stateOf(home).pointer_text, 'next');
  const ev = readJsonl(join(home, 'sessions', SID, 'events.jsonl')).at(-1);
  assert.equal(ev.type, 'pointer.published');
  assert.equal(ev.payload.revision, 2);
});

test('a state write that fails is WRITE_FAILED: the old state stays, nothing is appended, no temp file is left', () => {
  const { home, generation } = seeded();
  const dir = join(home, 'sessions', SID);
  const before = treeHash(home);
  // Tests run as root, where file modes do not stop writes; RLIMIT_FSIZE binds root too.
  const r = spawnSync('sh', ['-c', `ulimit -f 2; exec "${process.execPath}" "${BIN}" pointer publish`], {
    input: JSON.stringify(request({ expected_generation: generation, expected_revision: 1, pointer_text: 'y'.repeat(4000) })),
    encoding: 'utf8',
    env: { ...process.env, BATON_HOME: home, NO_COLOR: '1' },
  });
  assert.equal(r.status, 2, r.stderr);
  const receipt = JSON.parse(r.stdout);
  assert.equal(receipt.ok, false);
  assert.equal(receipt.error, 'WRITE_FAILED');
  assert.match(r.stderr, /WRITE_FAILED/);
  assert.equal(treeHash(home), before);
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')), []);
});

test('a folder where state.json should be is STATE_CORRUPT and nothing is written', () => {
  const { home, generation } = seeded();
  const dir = join(home, 'sessions', SID);
  fs.rmSync(join(dir, 'state.json'));
  fs.mkdirSync(join(dir, 'state.json'));
  const before = treeHash(home);
  const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1 })));
  assert.equal(r.code, 2);
  assert.equal(r.json.error, 'STATE_CORRUPT');
  assert.equal(treeHash(home), before);
});

test('an archived session refuses the publish with WRITE_FAILED and keeps its state', () => {
  const { home, generation } = seeded();
  const dir = join(home, 'sessions', SID);
  // Archive by appending session.archived through the store API.
  const script = `import { FsStore, cliWriter } from ${JSON.stringify(join(import.meta.dirname, '..', 'src', 'store', 'store.ts'))};
const s = new FsStore(${JSON.stringify(home)});
s.append(${JSON.stringify(SID)}, [{ type: 'session.archived', surface: 'cli', actor: 'user', payload: { retrospective: 'retrospective.md' } }], cliWriter());`;
  const a = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(a.status, 0, a.stderr);
  const state = fs.readFileSync(join(dir, 'state.json'));
  const journal = fs.readFileSync(join(dir, 'journal.jsonl'));
  const r = publish(home, JSON.stringify(request({ expected_generation: generation, expected_revision: 1, pointer_text: 'after archive' })));
  assert.equal(r.code, 2, r.stdout);
  assert.equal(r.json.error, 'WRITE_FAILED');
  assert.equal(r.json.cause, 'WS002');
  assert.deepEqual(fs.readFileSync(join(dir, 'state.json')), state);
  assert.deepEqual(fs.readFileSync(join(dir, 'journal.jsonl')), journal);
});

