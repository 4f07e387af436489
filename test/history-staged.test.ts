// A fresh imported session is laid out in a hidden folder and renamed into place (docs/adr/0082):
// no `.mutex` for a session nobody can see yet. These check the disk: the rename loses to a
// session made meanwhile or to a held mutex (nothing of the loser's is left, the winner's files
// untouched), the import then appends through the capture engine (every item once), an empty
// folder is replaced, and a killed importer's hidden folder is removed by the next import.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { historyFixture } from '../bench/history-fixture.ts';
import { HOST_TAG } from '../src/store/mutex.ts';
import { FsStore, STAGE_PREFIX } from '../src/store/store.ts';
import { importHistory } from '../src/transcripts/history.ts';
import { baton, tmpDir } from './helpers.ts';
import { agentEnv, assertOnce, itemsOf } from './history-helpers.ts';

const writer = { surface: 'cli', instanceId: 'test', actor: 'system' as const };
const created = { title: 't', workspace: { cwd: '/tmp' }, writer, createdBy: 'import:claude' };
const item = { type: 'x.note', surface: 'cli', actor: 'system' as const, payload: { n: 1 } };

const staged = (bh: string): string[] => fs.readdirSync(join(bh, 'sessions')).filter((n) => n.startsWith(STAGE_PREFIX));
const logLines = (bh: string, id: string): any[] =>
  fs
    .readFileSync(join(bh, 'sessions', id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test('a staged session is invisible until published, then a session like any other', async () => {
  const bh = tmpDir('baton-staged-');
  const store = new FsStore(bh);
  const stage = store.stageSession('s1');
  const events = store.createStaged(stage, 's1', created, [item]);
  await store.syncStaged(stage);
  assert.deepEqual(
    events.map((e) => e.seq),
    [1, 2],
  );
  assert.equal(store.exists('s1'), false);
  assert.deepEqual(store.ids(), []);
  assert.equal(store.publishStaged(stage, 's1'), true);
  assert.deepEqual(staged(bh), []);
  assert.deepEqual(store.ids(), ['s1']);
  assert.deepEqual(
    logLines(bh, 's1').map((e) => e.type),
    ['session.created', 'x.note'],
  );
  assert.equal(fs.existsSync(join(bh, 'sessions', 's1', '.mutex')), false);
  // The next append goes through the mutex as usual and continues the chain.
  store.append('s1', { type: 'runtime.error', surface: 'cli', actor: 'system', payload: { surface: 'cli', message: 'm' } }, writer);
  const r = baton(['--json', 'session', 'verify', 's1'], { home: bh });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.last_seq, 3);
});

test('the rename loses to a session made meanwhile and to a held mutex; an empty folder is replaced', () => {
  const bh = tmpDir('baton-staged-');
  const store = new FsStore(bh);
  // Made meanwhile (a hook's session.created under the mutex).
  const a = store.stageSession('made');
  store.createStaged(a, 'made', { ...created, title: 'staged' }, [item]);
  store.ensure('made', { ...created, title: 'hook' });
  const before = fs.readFileSync(join(bh, 'sessions', 'made', 'events.jsonl'), 'utf8');
  assert.equal(store.publishStaged(a, 'made'), false);
  assert.equal(fs.readFileSync(join(bh, 'sessions', 'made', 'events.jsonl'), 'utf8'), before);
  assert.deepEqual(
    logLines(bh, 'made').map((e) => e.payload.title),
    ['hook'],
  );
  // A folder whose mutex is held (a writer about to make the log): its .mutex makes it non-empty.
  const b = store.stageSession('held');
  store.createStaged(b, 'held', created, [item]);
  fs.mkdirSync(join(bh, 'sessions', 'held'));
  fs.writeFileSync(join(bh, 'sessions', 'held', '.mutex'), `${process.pid} host 0 n`);
  assert.equal(store.publishStaged(b, 'held'), false);
  assert.deepEqual(fs.readdirSync(join(bh, 'sessions', 'held')), ['.mutex']);
  // An empty folder (made by a writer that has not taken the mutex yet) is replaced.
  const c = store.stageSession('empty');
  store.createStaged(c, 'empty', created, [item]);
  fs.mkdirSync(join(bh, 'sessions', 'empty'));
  assert.equal(store.publishStaged(c, 'empty'), true);
  assert.equal(store.exists('empty'), true);
  assert.deepEqual(staged(bh), []);
});

test('history import: a session made while it was staged is appended to by the capture engine, every item once', async () => {
  const root = tmpDir('baton-staged-import-');
  const home = join(root, 'home');
  const fx = historyFixture(home, 512 * 1024, 2);
  const readerEnv = { home, env: { HOME: home } as NodeJS.ProcessEnv };
  const now = () => new Date('2026-12-04T02:00:00Z');
  const ref = join(root, 'ref');
  await importHistory(new FsStore(ref), { agents: ['claude', 'codex'], readerEnv, now });
  // A store whose rename always comes after a hook made the session (session.created alone).
  class Racing extends FsStore {
    lost = 0;
    override publishStaged(stage: string, id: string): boolean {
      this.ensure(id, { ...created, title: 'made by a hook' });
      const won = super.publishStaged(stage, id);
      if (!won) this.lost++;
      return won;
    }
  }
  const bh = join(root, 'baton');
  const store = new Racing(bh);
  const r = await importHistory(store, { agents: ['claude', 'codex'], readerEnv, now });
  assert.deepEqual(r.errors, []);
  assert.equal(store.lost, fx.sessions.length);
  assert.deepEqual(staged(bh), []);
  for (const s of fx.sessions) {
    const lines = logLines(bh, s.id);
    assert.equal(lines.filter((e) => e.type === 'session.created').length, 1);
    assert.equal(lines[0].payload.title, 'made by a hook');
    const items = itemsOf(bh, s.id);
    assertOnce(items);
    assert.deepEqual(
      items.map((e) => e.payload.item_id),
      itemsOf(ref, s.id).map((e) => e.payload.item_id),
    );
  }
  const scan = baton(['--json', 'history', 'scan', 'claude', 'codex'], { home: bh, env: agentEnv(home) });
  for (const a of scan.json.agents) assert.equal(a.in_baton, a.sessions, `${a.agent}: complete`);
});

test("the next import removes a killed importer's staged folder on this host, not a live one's", () => {
  const root = tmpDir('baton-staged-sweep-');
  const home = join(root, 'home');
  historyFixture(home, 256 * 1024, 2);
  const bh = join(root, 'baton');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadPid = Number(dead.stdout);
  assert.ok(deadPid > 0);
  const sessions = join(bh, 'sessions');
  fs.mkdirSync(join(sessions, `${STAGE_PREFIX}${HOST_TAG}.${deadPid}.abc`, 'transcripts'), { recursive: true });
  fs.writeFileSync(join(sessions, `${STAGE_PREFIX}${HOST_TAG}.${deadPid}.abc`, 'events.jsonl'), '');
  const live = `${STAGE_PREFIX}${HOST_TAG}.${process.pid}.def`;
  fs.mkdirSync(join(sessions, live));
  const other = `${STAGE_PREFIX}hother.${deadPid}.ghi`;
  fs.mkdirSync(join(sessions, other));
  const r = baton(['--json', 'history', 'import', 'claude', 'codex'], { home: bh, env: agentEnv(home) });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(staged(bh).sort(), [live, other].sort());
  assert.equal(r.json.totals.imported, 2);
});

test("history import publishes a staged session only once its log's fsync is done; a failed fsync publishes nothing and the next run imports it", async () => {
  const root = tmpDir('baton-staged-sync-');
  const home = join(root, 'home');
  const fx = historyFixture(home, 3 * 1024 * 1024, 12);
  const readerEnv = { home, env: { HOME: home } as NodeJS.ProcessEnv };
  const now = () => new Date('2026-12-04T02:00:00Z');
  const failing = fx.sessions[5].id;
  class Watched extends FsStore {
    synced = new Set<string>();
    published: string[] = [];
    override async syncStaged(stage: string): Promise<void> {
      if (fs.readFileSync(join(stage, 'events.jsonl'), 'utf8').includes(failing)) {
        throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
      }
      await super.syncStaged(stage);
      this.synced.add(stage);
    }
    override publishStaged(stage: string, id: string): boolean {
      assert.ok(this.synced.has(stage), `${id} published before its log was fsync'd`);
      this.published.push(id);
      return super.publishStaged(stage, id);
    }
  }
  const bh = join(root, 'baton');
  const store = new Watched(bh);
  const r = await importHistory(store, { agents: ['claude', 'codex'], readerEnv, now });
  assert.deepEqual(
    r.errors.map((e) => [e.session, e.code]),
    [[failing, 'ENOSPC']],
  );
  assert.equal(store.published.length, fx.sessions.length - 1);
  assert.deepEqual(staged(bh), []);
  assert.equal(fs.existsSync(join(bh, 'sessions', failing)), false, 'nothing of the failed session is visible');
  const again = baton(['--json', 'history', 'import', 'claude', 'codex'], { home: bh, env: agentEnv(home) });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.json.totals.imported, 1);
  const scan = baton(['--json', 'history', 'scan', 'claude', 'codex'], { home: bh, env: agentEnv(home) });
  for (const a of scan.json.agents) assert.equal(a.in_baton, a.sessions, `${a.agent}: complete`);
  for (const s of fx.sessions) assertOnce(itemsOf(bh, s.id));
});
