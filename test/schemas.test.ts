// The one schema source (src/schemas) against what is committed in schemas/ and against
// real files the CLI and the store wrote.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import type { z } from 'zod';
import type { StoredEvent } from '../src/core/events.ts';
import { EventLine } from '../src/schemas/event.ts';
import { FORMATS, renderJsonSchemas } from '../src/schemas/index.ts';
import { JournalLine, PointerStateV2, PointerStateV3, PublishReceipt, PublishRequest } from '../src/schemas/pointer.ts';
import { LockFile, Manifest } from '../src/schemas/store-files.ts';
import type { LockFile as CodeLockFile } from '../src/store/lease.ts';
import type { Manifest as CodeManifest } from '../src/store/projections.ts';
import { FsStore, cliWriter } from '../src/store/store.ts';
import { FIXTURES, ROOT, baton, tmpDir } from './helpers.ts';

// What the code writes must fit the schema types (a compile-time check, run by tsc).
const _lockFits = (l: CodeLockFile): z.input<typeof LockFile> => l;
const _manifestFits = (m: CodeManifest): z.input<typeof Manifest> => m;
void _lockFits;
void _manifestFits;

function check(schema: z.ZodType, value: unknown, where: string): void {
  const r = schema.safeParse(value);
  if (!r.success) assert.fail(`${where} does not match its schema:\n${JSON.stringify(r.error.issues, null, 2)}\n${JSON.stringify(value)}`);
}

function checkEventsFile(path: string): StoredEvent[] {
  const lines = fs.readFileSync(path, 'utf8').split('\n');
  assert.equal(lines.pop(), '', `${path} ends with a newline`);
  return lines.map((l, i) => {
    const ev = JSON.parse(l);
    check(EventLine, ev, `${path} line ${i + 1}`);
    assert.ok(l.endsWith(`,"h":"${ev.h}"}`), `h is the last field of line ${i + 1}`);
    return ev as StoredEvent;
  });
}

/** Checks every file of a session folder that has a schema; returns the event types seen. */
function checkSessionDir(dir: string): string[] {
  const events = checkEventsFile(join(dir, 'events.jsonl'));
  check(Manifest, JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8')), `${dir}/manifest.json`);
  if (fs.existsSync(join(dir, 'lock.json'))) check(LockFile, JSON.parse(fs.readFileSync(join(dir, 'lock.json'), 'utf8')), `${dir}/lock.json`);
  if (fs.existsSync(join(dir, 'state.json'))) {
    const s = JSON.parse(fs.readFileSync(join(dir, 'state.json'), 'utf8'));
    check(PointerStateV3, s, `${dir}/state.json`);
  }
  if (fs.existsSync(join(dir, 'journal.jsonl'))) {
    const lines = fs.readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const [i, l] of lines.entries()) check(JournalLine, JSON.parse(l), `${dir}/journal.jsonl line ${i + 1}`);
  }
  return events.map((e) => e.type);
}

test('the committed schemas/ are exactly what gen-schemas writes from src/schemas', () => {
  const want = renderJsonSchemas();
  const dir = join(ROOT, 'schemas');
  const have = fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  assert.deepEqual(have, Object.keys(want).sort(), 'one schemas/<name>.schema.json per format, no stale file (run npm run schemas)');
  for (const [name, text] of Object.entries(want)) {
    assert.equal(fs.readFileSync(join(dir, name), 'utf8'), text, `schemas/${name} is out of date: run npm run schemas`);
    assert.doesNotThrow(() => JSON.parse(text));
  }
  assert.deepEqual(Object.keys(FORMATS).sort(), ['event-line', 'journal-line', 'lock', 'manifest', 'publish-receipt', 'publish-request-v3', 'state-v2', 'state-v3']);
});

test('the event schema covers exactly the reserved event types of the store', async () => {
  const { RESERVED_TYPES } = await import('../src/core/events.ts');
  const { RESERVED_EVENT_TYPES } = await import('../src/schemas/event.ts');
  assert.deepEqual([...RESERVED_EVENT_TYPES].sort(), [...RESERVED_TYPES].sort());
});

test('files the CLI wrote through a whole session lifecycle match their schemas', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  // A git workspace, so session.created records git_root and git_branch.
  fs.mkdirSync(join(ws, '.git'));
  fs.writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const other = tmpDir('baton-ws2-');
  const ok = (args: string[], env: Record<string, string> = {}) => {
    const r = baton(args, { home, cwd: ws, env: { BATON_INSTANCE: 'cli@test', ...env } });
    assert.equal(r.code, 0, `baton ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  ok(['session', 'new', 'Schema check', '--id', 'schema-1', '--task', 'T-1', '--json']);
  ok(['session', 'append', 'schema-1', '--text', 'first note', '--tag', 'a', '--tag', 'b']);
  ok(['session', 'append', 'schema-1', '--text', 'password=hunter2 is a secret']);
  ok(['session', 'append', 'schema-1', '--type', 'x.bench.custom', '--text', 'custom']);
  fs.writeFileSync(join(ws, 'notes.txt'), 'artifact body\n');
  ok(['session', 'artifact', 'add', 'schema-1', join(ws, 'notes.txt')]);
  fs.writeFileSync(join(ws, 'notes.txt'), 'artifact body, changed\n');
  ok(['session', 'artifact', 'add', 'schema-1', join(ws, 'notes.txt')]);
  ok(['session', 'artifact', 'rm', 'schema-1', 'notes.txt']);
  ok(['session', 'renew', 'schema-1']);
  ok(['session', 'redact', 'schema-1', '--pattern', 'first']);
  // lock.json while the lease is held
  const dir1 = join(home, 'sessions', 'schema-1');
  assert.ok(fs.existsSync(join(dir1, 'lock.json')));
  checkSessionDir(dir1);
  ok(['session', 'release', 'schema-1']);
  ok(['session', 'resume', 'schema-1', '--workspace', other]);
  ok(['session', 'release', 'schema-1']);
  ok(['session', 'archive', 'schema-1']);

  // A stolen lease records lock.released {reason: stolen}.
  ok(['session', 'new', 'Stolen', '--id', 'schema-2', '--lease', '1s'], { BATON_INSTANCE: 'cli@first' });
  const until = Date.now() + 1500;
  while (Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  ok(['session', 'resume', 'schema-2', '--steal'], { BATON_INSTANCE: 'cli@second' });

  const seen = new Set<string>();
  for (const id of ['schema-1', 'schema-2']) for (const t of checkSessionDir(join(home, 'sessions', id))) seen.add(t);
  for (const t of [
    'session.created', 'context.appended', 'x.bench.custom', 'artifact.added', 'artifact.updated', 'artifact.removed', 'lock.acquired', 'lock.renewed',
    'lock.released', 'context.rewritten', 'session.resumed', 'session.archived',
  ]) {
    assert.ok(seen.has(t), `the scenario wrote a ${t} event (saw ${[...seen].join(', ')})`);
  }
});

test('files and receipts of baton pointer publish match their schemas', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const run = (args: string[], input = '') => baton(args, { home, cwd: ws, input, env: { BATON_INSTANCE: 'cli@test' } });
  assert.equal(run(['session', 'new', 'Pointer schema', '--id', 'ptr-1']).code, 0);
  const task = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
  const publish = (req: Record<string, unknown>) => {
    const r = run(['pointer', 'publish'], JSON.stringify({ schema_version: 3, session_id: 'ptr-1', ...req }));
    check(PublishReceipt, r.json, `receipt of ${JSON.stringify(req)}`);
    return r.json;
  };
  const first = publish({ expected_generation: 'ABSENT', expected_revision: 0, task_id: task, target_status: 'CLEAN', pointer_text: 'Goal: schemas\r\nNext: test' });
  assert.equal(first.ok, true, JSON.stringify(first));
  const dirty = publish({ expected_generation: first.generation, expected_revision: first.revision, task_id: task, target_status: 'DIRTY', pointer_text: 'Goal: schemas\nNext: more' });
  assert.equal(dirty.ok, true);
  const stale = publish({ expected_generation: first.generation, expected_revision: first.revision, task_id: task, target_status: 'CLEAN', pointer_text: 'old' });
  assert.equal(stale.error, 'STALE_REVISION');
  const bad = publish({ expected_generation: 'nope', expected_revision: 0, task_id: task, target_status: 'CLEAN', pointer_text: 'x' });
  assert.equal(bad.error, 'INVALID_REQUEST');
  const cleared = publish({ expected_generation: dirty.generation, expected_revision: dirty.revision, task_id: null, target_status: 'CLEARED', pointer_text: null });
  assert.equal(cleared.ok, true);
  const dir = join(home, 'sessions', 'ptr-1');
  assert.ok(fs.existsSync(join(dir, 'state.json')) && fs.existsSync(join(dir, 'journal.jsonl')));
  const types = checkSessionDir(dir);
  assert.ok(types.includes('pointer.published') && types.includes('pointer.cleared'), types.join(', '));
  // The log and the journal never carry the pointer text.
  for (const f of ['events.jsonl', 'journal.jsonl']) assert.ok(!fs.readFileSync(join(dir, f), 'utf8').includes('Next: more'), `${f} holds no pointer text`);
});

test('files the hooks and ref capture wrote (episodes, prompts, pointer fence, refs) match their schemas', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const hook = (name: string, extra: Record<string, unknown> = {}) => {
    const payload = { ...JSON.parse(fs.readFileSync(join(FIXTURES, 'claude', name), 'utf8')), cwd: ws, session_id: 'hook-schema-1', ...extra };
    const r = baton(['hook', 'claude'], { home, cwd: ws, input: JSON.stringify(payload) });
    assert.equal(r.code, 0, `hook ${name}: ${r.stderr}`);
  };
  hook('SessionStart.startup.json');
  hook('UserPromptSubmit.json');
  hook('UserPromptSubmit.json', { prompt: 'a second prompt with password=hunter2 in it' });
  hook('PreCompact.json');
  hook('SessionEnd.json');
  const ok = (args: string[]) => {
    const r = baton(args, { home, cwd: ws, env: { BATON_INSTANCE: 'cli@test' } });
    assert.equal(r.code, 0, `baton ${args.join(' ')}: ${r.stderr}`);
  };
  ok(['session', 'new', 'Ref target', '--id', 'ref-target']);
  ok(['ref', 'capture', '--from', 'hook-schema-1', '--into', 'ref-target', '--max-bytes', '100', '--max-lines', '3']);
  const seen = new Set<string>();
  for (const id of ['hook-schema-1', 'ref-target']) for (const t of checkSessionDir(join(home, 'sessions', id))) seen.add(t);
  for (const t of ['episode.opened', 'episode.closed', 'prompt.submitted', 'pointer.cleared', 'ref.captured']) {
    assert.ok(seen.has(t), `the scenario wrote a ${t} event (saw ${[...seen].join(', ')})`);
  }
});

test('files the store API wrote in process (create, append, acquire, release) match their schemas', () => {
  const home = tmpDir();
  const store = new FsStore(home);
  const writer = cliWriter({ BATON_INSTANCE: 'api@test' });
  const { id } = store.create({ title: 'In process', workspace: { cwd: home }, writer, leaseMs: 60_000 });
  store.append(id, { type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: 'x'.repeat(2000) } }, writer);
  store.append(id, { type: 'prompt.submitted', surface: 'hook:claude', actor: 'user', payload: { episode: 'ep-1', text: 'hi', digest: 'ab'.repeat(32) } }, writer);
  check(LockFile, store.lock(id), 'lock.json');
  store.release(id, writer);
  store.acquire(id, writer, { leaseMs: 60_000 });
  const types = checkSessionDir(store.dir(id));
  assert.deepEqual(types, ['session.created', 'lock.acquired', 'context.appended', 'prompt.submitted', 'lock.released', 'lock.acquired']);
});

test('the schemas refuse wrong files', () => {
  const lock = {
    holder: { surface: 'web', instance_id: 'browser-7f3a', actor: 'user@local' },
    lease: { acquired_at: '2026-05-27T07:01:00.000Z', lease_until: '2026-05-27T07:11:00.000Z', renew_count: 0 },
  };
  assert.ok(LockFile.safeParse(lock).success, 'the lock.json example of store.md is valid');
  assert.ok(!LockFile.safeParse({ ...lock, extra: 1 }).success, 'an extra field in lock.json');
  assert.ok(!LockFile.safeParse({ ...lock, lease: { ...lock.lease, lease_until: '2026-05-27 07:11' } }).success, 'a timestamp without milliseconds');

  const ev = { seq: 1, ts: '2026-11-29T21:00:00.123Z', type: 'context.appended', surface: 'cli', actor: 'user', payload: { text: 'x' }, h: '0'.repeat(32) };
  assert.ok(EventLine.safeParse(ev).success);
  assert.ok(!EventLine.safeParse({ ...ev, seq: 0 }).success, 'seq 0');
  assert.ok(!EventLine.safeParse({ ...ev, seq: 1.5 }).success, 'a fractional seq');
  assert.ok(!EventLine.safeParse({ ...ev, seq: '1' }).success, 'a string seq');
  assert.ok(!EventLine.safeParse({ ...ev, type: 'notes.added' }).success, 'a type outside the reserved namespaces and x.');
  assert.ok(!EventLine.safeParse({ ...ev, surface: 'hook' }).success, 'a surface without its provider');
  assert.ok(!EventLine.safeParse({ ...ev, actor: 'robot' }).success, 'an unknown actor');
  assert.ok(!EventLine.safeParse({ ...ev, h: 'xyz' }).success, 'a malformed chain hash');
  assert.ok(!EventLine.safeParse({ ...ev, payload: { text: 'x', extra: true } }).success, 'an extra payload key on a fixed payload');
  assert.ok(EventLine.safeParse({ ...ev, type: 'x.mine', payload: { anything: [1] } }).success, 'a custom x. event takes any object payload');
  const pub = { ...ev, type: 'pointer.published', payload: { revision: 2, status: 'CLEAN' } };
  assert.ok(EventLine.safeParse(pub).success);
  assert.ok(!EventLine.safeParse({ ...pub, payload: { ...pub.payload, pointer_text: 'secret plan' } }).success, 'pointer text in the log');

  const state = {
    schema_version: 3,
    session_id: 'session-example',
    generation: 'g-0123456789abcdef0123456789abcdef',
    revision: 3,
    status: 'CLEAN',
    task_id: '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f',
    pointer_text: 'Goal: finish the example\nNext: run the checks',
    updated_at: '2026-01-01T00:00:00Z',
  };
  assert.ok(PointerStateV3.safeParse(state).success, 'the state.json example of pointer.md is valid');
  assert.ok(!PointerStateV3.safeParse({ ...state, status: 'CLEARED' }).success, 'CLEARED with a task and text');
  assert.ok(PointerStateV3.safeParse({ ...state, status: 'CLEARED', task_id: null, pointer_text: null }).success);
  assert.ok(!PointerStateV3.safeParse({ ...state, pointer_text: 'a\r\nb' }).success, 'CR in stored text');
  assert.ok(!PointerStateV3.safeParse({ ...state, pointer_text: 'é'.repeat(4097) }).success, 'text over 8192 UTF-8 bytes');
  assert.ok(!PointerStateV3.safeParse({ ...state, task_id: state.task_id.toUpperCase() }).success, 'an upper-case UUID');
  assert.ok(!PointerStateV3.safeParse({ ...state, updated_at: '2026-01-01T00:00:00.000Z' }).success, 'updated_at with milliseconds');
  const { generation: _g, ...v2 } = state;
  assert.ok(PointerStateV2.safeParse({ ...v2, schema_version: 2 }).success, 'v2 is v3 without generation');
  assert.ok(!PointerStateV3.safeParse({ ...v2, schema_version: 3 }).success, 'v3 without generation');

  const req = {
    schema_version: 3,
    session_id: 'session-example',
    expected_generation: 'ABSENT',
    expected_revision: 0,
    task_id: state.task_id,
    target_status: 'CLEAN',
    pointer_text: 'Goal\r\nNext',
  };
  assert.ok(PublishRequest.safeParse(req).success);
  assert.ok(!PublishRequest.safeParse({ ...req, target_status: 'CLEARED' }).success, 'CLEARED with a task and text');
  assert.ok(!PublishRequest.safeParse({ ...req, extra: 1 }).success, 'an unknown field');
  assert.ok(!PublishRequest.safeParse({ ...req, expected_generation: 'g-123' }).success, 'a malformed generation');
  assert.ok(PublishReceipt.safeParse({ ok: false, error: 'INVALID_REQUEST', detail: 'INVALID_FIELD:task_id', message: 'm' }).success);
  assert.ok(!PublishReceipt.safeParse({ ok: false, error: 'NOPE', message: 'm' }).success, 'an unknown error code');
  assert.ok(!PublishReceipt.safeParse({ ok: false, error: 'STALE_REVISION' }).success, 'a stale refusal without the current generation and revision');

  const m = {
    id: 's', title: 't', schema: 'baton-session-1', created_by: 'cli', created_at: ev.ts, task_id: null, parent_session: null,
    allowed_runtimes: ['cli', 'hook'], workspace: { cwd: '/tmp' },
    status: { state: 'active', last_event_seq: 2, last_writer: 'cli', last_touched_at: ev.ts },
  };
  assert.ok(Manifest.safeParse(m).success);
  assert.ok(!Manifest.safeParse({ ...m, schema: 'baton-session-2' }).success, 'another manifest schema');
  assert.ok(!Manifest.safeParse({ ...m, status: { ...m.status, state: 'paused' } }).success, 'an unknown state');
});

// src/server (dist/serve.cjs) and src/mcp (dist/mcp.cjs) are bundles of their own that validate
// with zod at run time; what must stay free of it are the hook and the command line (checked below).
const OWN_BUNDLES = ['schemas', 'server', 'mcp'].map((d) => join(ROOT, 'src', d));

test('runtime code never loads zod: src/ outside src/schemas (and the server and MCP bundles) imports schemas as types only', () => {
  const bad: string[] = [];
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d)) {
      const p = join(d, n);
      if (fs.statSync(p).isDirectory()) {
        if (!OWN_BUNDLES.includes(p)) walk(p);
        continue;
      }
      if (!p.endsWith('.ts')) continue;
      const text = fs.readFileSync(p, 'utf8');
      for (const m of text.matchAll(/^\s*import\s+(type\s+)?[^;]*?from\s+['"]([^'"]+)['"]/gm)) {
        const isType = !!m[1];
        const from = m[2];
        if (from === 'zod' || from.startsWith('zod/')) bad.push(`${relative(ROOT, p)} imports zod`);
        else if (/(^|\/)schemas(\/|$)/.test(from) && !isType) bad.push(`${relative(ROOT, p)} imports values from ${from}`);
      }
    }
  };
  walk(join(ROOT, 'src'));
  assert.deepEqual(bad, []);
  for (const bundle of ['hook.cjs', 'cli.cjs']) {
    const path = join(ROOT, 'dist', bundle);
    if (!fs.existsSync(path)) continue;
    assert.ok(!/\$ZodType|ZodError/.test(fs.readFileSync(path, 'utf8')), `dist/${bundle} does not bundle zod`);
    assert.ok(!fs.readFileSync(path, 'utf8').includes('modelcontextprotocol'), `dist/${bundle} does not bundle the MCP SDK`);
  }
});
