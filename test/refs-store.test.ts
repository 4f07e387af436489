// Refs in the store (store/refs.ts), in process with an injected clock: storage, the
// ref.captured event, the default body, the cheap current version, and the SessionStart
// rendering within a byte budget.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isBatonError } from '../src/core/errors.ts';
import { type StoredRef, captureRef, currentVersion, readRefs, renderRefsForContext } from '../src/store/refs.ts';
import { FsStore, type Writer } from '../src/store/store.ts';
import { readJsonl, tmpDir, treeHash } from './helpers.ts';

const W: Writer = { surface: 'cli', instanceId: 'cli@test@host', actor: 'user' };
const T0 = new Date('2026-11-29T21:00:00Z');
const HOUR = 3_600_000;

function setup(ids: string[]): { home: string; store: FsStore; clock: { now: Date } } {
  const home = tmpDir();
  const clock = { now: T0 };
  const store = new FsStore(home, { clock: () => clock.now });
  for (const id of ids) store.create({ title: id.toUpperCase(), id, workspace: { cwd: '/tmp' }, writer: W, leaseMs: 100 * HOUR });
  return { home, store, clock };
}

function note(store: FsStore, id: string, text: string): void {
  store.append(id, { type: 'context.appended', surface: 'cli', actor: 'user', payload: { text } }, W);
}

function cap(store: FsStore, from: string, into: string, body: string | null, extra: Partial<{ ttlMs: number; maxBytes: number; maxLines: number }> = {}): StoredRef {
  return captureRef(store, {
    from,
    into,
    body,
    ttlMs: extra.ttlMs ?? 2 * HOUR,
    bounds: { maxBytes: extra.maxBytes ?? 0, maxLines: extra.maxLines ?? 0 },
    writer: W,
  }).ref;
}

test('capture stores the ref with the target and appends ref.captured (all fields but the body, plus the target) to the target only', () => {
  const { home, store } = setup(['a', 'b']);
  note(store, 'a', 'the build is green');
  const aBefore = fs.readFileSync(join(home, 'sessions', 'a', 'events.jsonl'));
  const r = cap(store, 'a', 'b', 'conclusion: green\n');
  assert.equal(r.source, 'a');
  assert.equal(r.source_version, 3);
  assert.equal(r.target, 'b');
  assert.deepEqual(fs.readFileSync(join(home, 'sessions', 'a', 'events.jsonl')), aBefore, 'the source log is untouched');
  const last = readJsonl(join(home, 'sessions', 'b', 'events.jsonl')).at(-1);
  assert.equal(last.type, 'ref.captured');
  assert.equal(last.seq, r.seq);
  assert.deepEqual(last.payload, {
    source: 'a',
    source_version: 3,
    captured_at: '2026-11-29T21:00:00.000Z',
    expires_at: '2026-11-29T23:00:00.000Z',
    truncated: false,
    original_bytes: 18,
    digest: r.digest,
    target: 'b',
  });
  const stored = readRefs(store, 'b');
  assert.equal(stored.length, 1);
  assert.equal(stored[0].body, 'conclusion: green\n');
  const st = fs.statSync(join(home, 'sessions', 'b', 'refs', 'a.json'));
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(fs.statSync(join(home, 'sessions', 'b', 'refs')).mode & 0o777, 0o700);
});

test('a re-capture from the same source replaces the previous ref; other sources stay', () => {
  const { store } = setup(['a', 'c', 'b']);
  cap(store, 'a', 'b', 'old');
  cap(store, 'c', 'b', 'from c');
  note(store, 'a', 'more');
  const again = cap(store, 'a', 'b', 'new');
  const refs = readRefs(store, 'b');
  assert.deepEqual(
    refs.map((r) => [r.source, r.body]),
    [
      ['a', 'new'],
      ['c', 'from c'],
    ],
  );
  assert.equal(refs[0].seq, again.seq);
  assert.equal(refs[0].source_version, 3);
});

test('the default body is the source pointer text when it has one', () => {
  const { home, store } = setup(['a', 'b']);
  fs.writeFileSync(join(home, 'sessions', 'a', 'state.json'), JSON.stringify({ status: 'CLEAN', revision: 2, pointer_text: 'NEXT: ship it' }));
  assert.equal(cap(store, 'a', 'b', null).body, 'NEXT: ship it');
});

test('without a pointer the default body is context.md as of the log, and capturing writes nothing into the source', () => {
  const { home, store } = setup(['a', 'b']);
  note(store, 'a', 'decided: use sqlite');
  fs.rmSync(join(home, 'sessions', 'a', 'context.md'));
  const before = treeHash(join(home, 'sessions', 'a'));
  const r = cap(store, 'a', 'b', null);
  assert.match(r.body, /^<!-- baton:context session=a last_event_seq=3 -->/);
  assert.ok(r.body.includes('decided: use sqlite'));
  assert.equal(treeHash(join(home, 'sessions', 'a')), before);
});

test('secrets in a ref body are redacted before it is stored', () => {
  const { store } = setup(['a', 'b']);
  const r = cap(store, 'a', 'b', 'token ghp_0123456789abcdefghijABCDEFGHIJ012345 here\n');
  assert.ok(!r.body.includes('ghp_0123'));
  assert.ok(r.body.includes('<redacted>'));
});

test('refused captures change nothing on disk: missing source or target (WS001), self (REF_SELF), bad bound, expiry', () => {
  const { home, store } = setup(['a', 'b']);
  const before = treeHash(home);
  const codeOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      assert.ok(isBatonError(e), String(e));
      return e.code;
    }
    return 'none';
  };
  const base = { from: 'a', into: 'b', body: 'x', ttlMs: HOUR, bounds: { maxBytes: 0, maxLines: 0 }, writer: W };
  assert.equal(codeOf(() => captureRef(store, { ...base, from: 'nope' })), 'WS001');
  assert.equal(codeOf(() => captureRef(store, { ...base, into: 'nope' })), 'WS001');
  assert.equal(codeOf(() => captureRef(store, { ...base, into: 'a' })), 'REF_SELF');
  assert.equal(codeOf(() => captureRef(store, { ...base, from: '' })), 'REF_EMPTY_SOURCE');
  assert.equal(codeOf(() => captureRef(store, { ...base, ttlMs: 0 })), 'REF_EXPIRY');
  assert.equal(codeOf(() => captureRef(store, { ...base, ttlMs: -5 })), 'REF_EXPIRY');
  assert.equal(codeOf(() => captureRef(store, { ...base, bounds: { maxBytes: -1, maxLines: 0 } })), 'REF_INVALID_BOUND');
  assert.equal(codeOf(() => captureRef(store, { ...base, bounds: { maxBytes: 0, maxLines: -1 } })), 'REF_INVALID_BOUND');
  assert.equal(treeHash(home), before);
});

test('current version: the last complete line of the log; a torn tail does not count; a missing session is 0', () => {
  const { home, store } = setup(['a']);
  assert.equal(currentVersion(store, 'a'), 2);
  note(store, 'a', 'x'.repeat(200_000)); // a last line longer than the first read window
  assert.equal(currentVersion(store, 'a'), 3);
  fs.appendFileSync(join(home, 'sessions', 'a', 'events.jsonl'), '{"seq":4,"ts":"2026-11-29T21:00:00Z","type":"context.app');
  assert.equal(currentVersion(store, 'a'), 3);
  assert.equal(currentVersion(store, 'missing'), 0);
});

test('a source that no longer exists reads as version 0: its refs are stale, still rendered', () => {
  const { home, store } = setup(['a', 'b']);
  cap(store, 'a', 'b', 'body');
  fs.rmSync(join(home, 'sessions', 'a'), { recursive: true });
  const out = renderRefsForContext(store, 'b', 10_000, T0);
  assert.match(out, /^<session-ref source="a" state="stale" version="2" current="0" /);
});

test('renderRefsForContext: every ref with its current state when the budget allows, newest capture first', () => {
  const { store, clock } = setup(['a', 'c', 'd', 'b']);
  cap(store, 'a', 'b', 'from a\n');
  cap(store, 'c', 'b', 'from c\n', { ttlMs: 1000 });
  cap(store, 'd', 'b', 'from d\n');
  note(store, 'a', 'moved on');
  clock.now = new Date(T0.getTime() + 60_000);
  const out = renderRefsForContext(store, 'b', 100_000, clock.now);
  const tags = out.split('\n').filter((l) => l.startsWith('<session-ref '));
  assert.deepEqual(
    tags.map((t) => /source="(\w+)" state="(\w+)"/.exec(t)!.slice(1).join(':')),
    ['d:fresh', 'c:expired', 'a:stale'],
  );
  assert.ok(!out.includes('omitted='));
  assert.equal(renderRefsForContext(store, 'a', 100_000, clock.now), '', 'a session without refs renders nothing');
});

test('renderRefsForContext stays within the budget and lists the refs that do not fit with omitted="size"', () => {
  const { store } = setup(['a', 'c', 'b']);
  const big = cap(store, 'a', 'b', `${'big line\n'.repeat(200)}`);
  const small = cap(store, 'c', 'b', 'small\n');
  const all = renderRefsForContext(store, 'b', 1_000_000, T0);
  const total = Buffer.byteLength(all);
  for (const budget of [total, total - 1, 1500, 600, 120, 60, 0]) {
    const out = renderRefsForContext(store, 'b', budget, T0);
    assert.ok(Buffer.byteLength(out) <= budget, `budget ${budget}: ${Buffer.byteLength(out)} bytes`);
  }
  // Room for the small one and the big one's stand-in, not for the big one.
  const out = renderRefsForContext(store, 'b', 600, T0);
  assert.ok(out.includes(`<session-ref source="c" state="fresh" version="2" current="2" digest="${small.digest}">`));
  assert.ok(out.includes(`<session-ref source="a" digest="${big.digest}" state="fresh" omitted="size"/>`));
  assert.ok(!out.includes('big line'));
  // Room for neither in full: both listed.
  const tight = renderRefsForContext(store, 'b', 160, T0);
  assert.equal((tight.match(/omitted="size"/g) ?? []).length, 2);
  assert.equal(renderRefsForContext(store, 'b', 0, T0), '');
});

test('renderRefsForContext ignores an unreadable ref file instead of failing the hook', () => {
  const { home, store } = setup(['a', 'b']);
  cap(store, 'a', 'b', 'ok\n');
  fs.writeFileSync(join(home, 'sessions', 'b', 'refs', 'zz.json'), '{not json');
  const out = renderRefsForContext(store, 'b', 10_000, T0);
  assert.equal((out.match(/<session-ref /g) ?? []).length, 1);
});
