// Copilot writes its events.jsonl as it exits, after its hooks ran (seen in the real 1.0.102:
// the file missing at agentStop and sessionEnd of a turn with tool calls). Its sessionEnd hook
// returns at once and leaves the capture to a detached run that waits until no live process
// holds `inuse.<pid>.lock` in the session's folder (docs/adr/0070). The real `baton hook
// copilot`, a live process standing in for Copilot, the real fixture written after the hook.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { baton, readJsonl, ROOT, tmpDir } from './helpers.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'copilot', 'copilot-1.0.102-session.jsonl');
const SID = '4db2212c-6562-4695-aea2-56493c2bf911';
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

function setup(): { home: string; store: string; dir: string; env: Record<string, string> } {
  const root = tmpDir('baton-deferred-');
  const home = join(root, 'home');
  const store = join(root, 'store');
  const dir = join(home, '.copilot', 'session-state', SID);
  fs.mkdirSync(dir, { recursive: true });
  return { home, store, dir, env: { HOME: home, COPILOT_HOME: '' } };
}

const hook = (s: ReturnType<typeof setup>, event: string, payload: Record<string, unknown>) =>
  baton(['hook', 'copilot', '--home', s.store], { env: { ...s.env, BATON_HOOK_EVENT: event }, input: JSON.stringify({ sessionId: SID, timestamp: Date.now(), cwd: s.home, ...payload }) });

function items(store: string): any[] {
  const sessions = join(store, 'sessions');
  if (!fs.existsSync(sessions)) return [];
  return fs
    .readdirSync(sessions)
    .filter((n) => fs.existsSync(join(sessions, n, 'events.jsonl')))
    .flatMap((n) => readJsonl(join(sessions, n, 'events.jsonl')))
    .filter((e: any) => e.type === 'transcript.item');
}

const lastRun = (store: string): string => {
  const f = join(store, 'hooks', 'copilot.transcript.last');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
};

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('copilot: the end hook returns while Copilot still holds its session; the detached run captures the events file it writes as it exits, once', async () => {
  const s = setup();
  assert.equal(hook(s, 'sessionStart', { source: 'new' }).code, 0);
  // Copilot running: its lock names a live process; no events.jsonl yet.
  const copilot = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(copilot);
  fs.writeFileSync(join(s.dir, `inuse.${copilot.pid}.lock`), String(copilot.pid));

  const end = hook(s, 'sessionEnd', { reason: 'complete' });
  assert.equal(end.code, 0, end.stderr);
  assert.equal(end.stderr, '');
  assert.equal(items(s.store).length, 0, 'nothing to capture yet: the file is not there');

  // Copilot writes the file as it exits, then lets go of the lock.
  fs.copyFileSync(FIXTURE, join(s.dir, 'events.jsonl'));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(items(s.store).length, 0, 'the detached run waits while the lock is held');
  const before = fs.statSync(join(s.dir, 'events.jsonl'));
  copilot.kill('SIGKILL');
  await until('the deferred capture', () => /sessionEnd deferred ok \d+/.test(lastRun(s.store)));
  const got = items(s.store);
  assert.ok(got.length >= 10, `the run's items: ${got.length}`);
  assert.equal(new Set(got.map((e) => e.payload.item_id)).size, got.length, 'each item once');
  assert.ok(got.some((e) => e.payload.role === 'assistant' && e.payload.text === 'I will write the notes file first.'));
  const after = fs.statSync(join(s.dir, 'events.jsonl'));
  assert.equal(after.mtimeMs, before.mtimeMs, "the agent's file untouched");
  assert.deepEqual(fs.readFileSync(join(s.dir, 'events.jsonl')), fs.readFileSync(FIXTURE));

  // A second end over the settled file: captured inline (no deferral), nothing twice.
  const again = hook(s, 'sessionEnd', { reason: 'complete' });
  assert.equal(again.code, 0, again.stderr);
  assert.match(lastRun(s.store), /sessionEnd ok 0/);
  assert.equal(items(s.store).length, got.length);
});

test('copilot: a lock left by a crashed Copilot (a dead pid) does not defer: the end captures inline', async () => {
  const s = setup();
  assert.equal(hook(s, 'sessionStart', { source: 'new' }).code, 0);
  const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => gone.on('exit', r));
  fs.writeFileSync(join(s.dir, `inuse.${gone.pid}.lock`), String(gone.pid));
  fs.copyFileSync(FIXTURE, join(s.dir, 'events.jsonl'));
  const end = hook(s, 'sessionEnd', { reason: 'complete' });
  assert.equal(end.code, 0, end.stderr);
  assert.match(lastRun(s.store), /^\S+ sessionEnd ok \d+/);
  assert.ok(items(s.store).length >= 10);
});
