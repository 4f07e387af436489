// `baton history import` killed (SIGKILL) at several moments over a generated store of real
// Claude and Codex lines, then run again: every item exactly once. And the window loop: a
// file read in small windows gives exactly what one read of it gives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { historyFixture } from '../bench/history-fixture.ts';
import { FsStore } from '../src/store/store.ts';
import { importHistory } from '../src/transcripts/history.ts';
import { BIN, baton, tmpDir } from './helpers.ts';
import { agentEnv, assertOnce, assertUnchanged, itemsOf, snapshot } from './history-helpers.ts';

function killedAfter(ms: number, bh: string, env: Record<string, string | undefined>): Promise<string> {
  const e: Record<string, string | undefined> = { ...process.env, ...env, BATON_HOME: bh, NO_COLOR: '1' };
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, 'history', 'import', 'claude', 'codex'], { env: e as NodeJS.ProcessEnv, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      res(signal ?? `exit ${code}`);
    });
  });
}

test('SIGKILL at several moments, then a run to the end: every session once, every item exactly once', async () => {
  const root = tmpDir('baton-history-kill-');
  const home = join(root, 'home');
  const fx = historyFixture(home, 12 * 1024 * 1024, 60);
  const env = agentEnv(home);
  const before = snapshot(home);
  const ref = join(root, 'ref');
  assert.equal(baton(['history', 'import', 'claude', 'codex'], { home: ref, env }).code, 0);
  const bh = join(root, 'baton');
  const outcomes: string[] = [];
  for (const ms of [120, 350, 700, 1200, 2000]) outcomes.push(await killedAfter(ms, bh, env));
  assert.ok(outcomes.includes('SIGKILL'), `at least one run was killed mid-way: ${outcomes.join(', ')}`);
  const last = baton(['--json', 'history', 'import', 'claude', 'codex'], { home: bh, env });
  assert.equal(last.code, 0, last.stderr);
  const scan = baton(['--json', 'history', 'scan', 'claude', 'codex'], { home: bh, env });
  for (const a of scan.json.agents) assert.equal(a.in_baton, a.sessions, `${a.agent}: every session complete`);
  for (const s of fx.sessions) {
    const items = itemsOf(bh, s.id);
    assertOnce(items);
    assert.deepEqual(
      items.map((e) => e.payload.item_id),
      itemsOf(ref, s.id).map((e) => e.payload.item_id),
      `${s.id}: the items of one clean import, once each`,
    );
    const created = fs
      .readFileSync(join(bh, 'sessions', s.id, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"session.created"'));
    assert.equal(created.length, 1, 'one session.created');
  }
  assertUnchanged(before, snapshot(home));
});

test('a file read in small windows (bounded memory) gives exactly the items of one read', async () => {
  const root = tmpDir('baton-history-window-');
  const home = join(root, 'home');
  const fx = historyFixture(home, 2 * 1024 * 1024, 2);
  const readerEnv = { home, env: { HOME: home } as NodeJS.ProcessEnv };
  const run = (dir: string, window: number) => importHistory(new FsStore(join(root, dir)), { agents: ['claude', 'codex'], readerEnv, now: () => new Date('2026-12-02T02:00:00Z'), window });
  const small = await run('small', 64 * 1024);
  const whole = await run('whole', Number.POSITIVE_INFINITY);
  assert.deepEqual(small.errors, []);
  assert.ok(small.agents.every((a) => a.imported === 1));
  for (const s of fx.sessions) {
    const a = itemsOf(join(root, 'small'), s.id).map((e) => e.payload);
    const b = itemsOf(join(root, 'whole'), s.id).map((e) => e.payload);
    assert.ok(a.length > 30, `many items: ${a.length}`);
    assert.deepEqual(a, b);
  }
  assert.deepEqual(
    small.agents.map((a) => a.items),
    whole.agents.map((a) => a.items),
  );
});
