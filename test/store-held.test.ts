// One process appending many times keeps the session's hot files open between appends
// (src/store/heldfd.ts). What a user relies on: a file replaced, rotated or deleted by
// someone else between two appends is never written through a stale descriptor — every
// acknowledged event is in the file the path names, and the chain stays valid.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FsStore, type Writer } from '../src/store/store.ts';
import { baton, readJsonl, tmpDir } from './helpers.ts';

const WRITER: Writer = { surface: 'cli', instanceId: 'cli@held-test', actor: 'agent' };

function setup(): { home: string; store: FsStore; id: string; dir: string } {
  const home = tmpDir();
  const store = new FsStore(home);
  const { id } = store.create({ title: 'held descriptors', workspace: { cwd: home }, writer: WRITER, leaseMs: 3600_000 });
  return { home, store, id, dir: store.dir(id) };
}

function note(store: FsStore, id: string, text: string): void {
  store.append(id, { type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text } }, WRITER);
}

function texts(dir: string): string[] {
  return readJsonl(join(dir, 'events.jsonl'))
    .filter((e) => e.type === 'context.appended')
    .map((e) => e.payload.text);
}

function assertContiguous(dir: string): void {
  const events = readJsonl(join(dir, 'events.jsonl'));
  for (const [i, e] of events.entries()) assert.equal(e.seq, i + 1);
}

test('a log replaced by rename between two appends (a sync tool restoring it): the next append lands in the new file', () => {
  const { home, store, id, dir } = setup();
  note(store, id, 'one');
  note(store, id, 'two');
  const log = join(dir, 'events.jsonl');
  const tmp = join(dir, 'restored.tmp');
  fs.copyFileSync(log, tmp);
  fs.renameSync(tmp, log);
  note(store, id, 'three');
  assert.deepEqual(texts(dir), ['one', 'two', 'three']);
  assertContiguous(dir);
  const v = baton(['session', 'verify', id, '--json'], { home });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal(v.json.ok, true);
});

test('a log tampered with between two appends of one process: the append is refused (WS201), nothing written', () => {
  const { store, id, dir } = setup();
  note(store, id, 'first note');
  note(store, id, 'second note');
  const log = join(dir, 'events.jsonl');
  // Replace it with a copy in which one byte of a middle line changed.
  const bytes = fs.readFileSync(log);
  const at = bytes.indexOf('first note');
  bytes[at] = 'F'.charCodeAt(0);
  const tmp = join(dir, 'tampered.tmp');
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, log);
  assert.throws(() => note(store, id, 'after the tamper'), (e: Error & { code?: string }) => e.code === 'WS201');
  assert.deepEqual(fs.readFileSync(log), bytes);
});

test('a session deleted and created again under the same id in one process: events go to the new log', () => {
  const { home, store, id, dir } = setup();
  note(store, id, 'old session');
  fs.rmSync(dir, { recursive: true });
  const again = store.create({ id, title: 'again', workspace: { cwd: home }, writer: WRITER, leaseMs: 3600_000 });
  assert.equal(again.id, id);
  note(store, id, 'new session');
  assert.deepEqual(texts(dir), ['new session']);
  assertContiguous(dir);
});

test('.verified deleted between appends: other processes still append and verify correctly', () => {
  const { home, store, id, dir } = setup();
  note(store, id, 'a');
  fs.rmSync(join(dir, '.verified'));
  note(store, id, 'b');
  const r = baton(['session', 'append', id, '--text', 'c'], { home, env: { BATON_INSTANCE: WRITER.instanceId } });
  assert.equal(r.code, 0, r.stderr);
  note(store, id, 'd');
  assert.deepEqual(texts(dir), ['a', 'b', 'c', 'd']);
  assertContiguous(dir);
  assert.equal(baton(['session', 'verify', id], { home }).code, 0);
});

test('the change feed rotated by a reader between two appends: the next hint goes to the new feed', () => {
  const { home, store, id } = setup();
  note(store, id, 'before rotation');
  const feed = join(home, 'index.feed');
  fs.renameSync(feed, join(home, 'index.feed.old'));
  note(store, id, 'after rotation');
  assert.equal(fs.readFileSync(feed, 'utf8'), `${id}\n`);
});

test('manifest.json changed by another process between appends is read again, never overwritten from memory', () => {
  const { home, store, id, dir } = setup();
  note(store, id, 'one');
  // Another process renames the session: its manifest patch changes the file under us.
  const r = baton(['session', 'append', id, '--text', 'from another process'], { home, env: { BATON_INSTANCE: WRITER.instanceId } });
  assert.equal(r.code, 0, r.stderr);
  const m = JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8'));
  m.title = 'renamed by hand';
  fs.writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
  note(store, id, 'two');
  const after = JSON.parse(fs.readFileSync(join(dir, 'manifest.json'), 'utf8'));
  assert.equal(after.title, 'renamed by hand', 'the patch started from the file, not from this process memory');
  assert.equal(after.status.last_event_seq, readJsonl(join(dir, 'events.jsonl')).length);
});

test('a lease released or stolen by another process between two appends of one process: the next content append is refused', async () => {
  const home = tmpDir();
  const store = new FsStore(home);
  const { id } = store.create({ title: 'lease moves', workspace: { cwd: home }, writer: WRITER, leaseMs: 300 });
  note(store, id, 'while held');
  // Released by the same instance from the command line: WS100 here.
  const rel = baton(['session', 'release', id], { home, env: { BATON_INSTANCE: WRITER.instanceId } });
  assert.equal(rel.code, 0, rel.stderr);
  assert.throws(() => note(store, id, 'after release'), (e: Error & { code?: string }) => e.code === 'WS100');
  // Taken again here, left to expire, then stolen by another instance: WS101 here.
  store.acquire(id, WRITER, { leaseMs: 300 });
  note(store, id, 'held again');
  await new Promise((r) => setTimeout(r, 400));
  const steal = baton(['session', 'resume', id, '--steal'], { home, env: { BATON_INSTANCE: 'cli@thief' } });
  assert.equal(steal.code, 0, steal.stderr);
  const before = fs.readFileSync(join(store.dir(id), 'events.jsonl'));
  assert.throws(() => note(store, id, 'after the steal'), (e: Error & { code?: string }) => e.code === 'WS101');
  assert.deepEqual(fs.readFileSync(join(store.dir(id), 'events.jsonl')), before, 'nothing was written');
  assert.deepEqual(texts(store.dir(id)), ['while held', 'held again']);
});

test('.mutex left naming this process own parked token (a release that could not unlink): the next append clears it', () => {
  const { store, id, dir } = setup();
  note(store, id, 'one');
  const token = fs.readdirSync(dir).find((n) => n.startsWith('.mutex.h'));
  assert.ok(token, 'this process keeps a parked mutex token in the folder');
  fs.linkSync(join(dir, token), join(dir, '.mutex'));
  note(store, id, 'two'); // without the rule: WS103 after the 5 s timeout, as the token stays fresh
  assert.deepEqual(texts(dir), ['one', 'two']);
  assert.equal(fs.existsSync(join(dir, '.mutex')), false);
});

test('a holder stalled past the stale age, whose mutex another process broke and took, writes nothing (WS103)', () => {
  const { store, id, dir } = setup();
  note(store, id, 'before the stall');
  const log = join(dir, 'events.jsonl');
  const before = fs.readFileSync(log);
  const realNow = Date.now;
  try {
    assert.throws(
      () =>
        store.locked(id, () => {
          // While we were stopped (6 s pass): a waiter broke our .mutex as stale and now holds its own.
          fs.renameSync(join(dir, '.mutex'), join(dir, '.mutex.broken.test'));
          fs.unlinkSync(join(dir, '.mutex.broken.test'));
          fs.writeFileSync(join(dir, '.mutex'), `1 another-host ${realNow()} other`);
          Date.now = () => realNow() + 6_000;
          store.appendUnderMutex(id, [{ type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: 'after the stall' } }], WRITER);
        }),
      (e: Error & { code?: string }) => e.code === 'WS103',
    );
  } finally {
    Date.now = realNow;
  }
  assert.deepEqual(fs.readFileSync(log), before, 'nothing was written');
  assert.equal(fs.readFileSync(join(dir, '.mutex'), 'utf8').includes('another-host'), true, "the other holder's mutex is untouched");
});
