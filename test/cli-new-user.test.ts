// What a new user hits in the command line (issue 29): each test runs the real binary in a
// temp home and checks the disk after a refusal.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { agentWorld, baton, tmpDir, treeHash } from './helpers.ts';

test('read commands on a home baton would not write are refused like writes (WS011 / WS012), nothing written', () => {
  const work = tmpDir();
  const foreign = join(work, 'foreign');
  fs.mkdirSync(foreign);
  fs.writeFileSync(join(foreign, 'notes.txt'), 'not a store\n');
  const file = join(work, 'a-file');
  fs.writeFileSync(file, 'x');
  const before = treeHash(work);
  const reads = [['session', 'list'], ['session', 'list', '--all'], ['search', 'foo'], ['project', 'list'], ['session', 'show', 'abc'], ['session', 'log', 'abc'], ['pointer', 'show', 'abc'], ['status'], ['doctor']];
  for (const args of reads) {
    const a = baton(['--home', foreign, ...args], { cwd: work });
    assert.equal(a.code, 2, `${args.join(' ')}: ${a.stderr}`);
    assert.match(a.stderr, /^baton: WS011 refusing .*foreign as the store/, args.join(' '));
    const b = baton(['--home', file, ...args, '--json'], { cwd: work });
    assert.equal(b.code, 2, args.join(' '));
    assert.equal(b.json.error.code, 'WS012', args.join(' '));
  }
  assert.equal(treeHash(work), before);
  // A home that does not exist yet is a new, empty store: a read answers, and makes nothing.
  const fresh = baton(['--home', join(work, 'new-home'), 'session', 'list', '--all']);
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(fresh.stdout, 'no sessions\n');
  assert.equal(fs.existsSync(join(work, 'new-home')), false);
});

test('install then uninstall gives back a settings file that had an empty "hooks": {} byte for byte (claude, codex, gemini)', () => {
  const w = agentWorld();
  for (const p of ['claude', 'codex', 'gemini']) {
    const dry = baton(['install', p, '--dry-run', '--json'], { env: w.env, cwd: w.project });
    assert.equal(dry.code, 0, dry.stderr);
    const file: string = dry.json.file;
    for (const original of ['{\n  "model": "x",\n  "hooks": {}\n}\n', '{"hooks":{}}']) {
      fs.mkdirSync(dirname(file), { recursive: true });
      fs.writeFileSync(file, original);
      const i = baton(['install', p], { env: w.env, cwd: w.project });
      assert.equal(i.code, 0, i.stderr);
      assert.notEqual(fs.readFileSync(file, 'utf8'), original);
      const u = baton(['uninstall', p, '--json'], { env: w.env, cwd: w.project });
      assert.equal(u.code, 0, u.stderr);
      const user = u.json.results.find((r: { file: string }) => r.file === file);
      assert.equal(user.backup, null, `${p}: no "the file changed since"`);
      assert.equal(user.backup_removed, `${file}.baton-backup`);
      assert.equal(fs.readFileSync(file, 'utf8'), original, p);
      assert.equal(fs.existsSync(`${file}.baton-backup`), false);
    }
  }
});

test('session new with an empty or blank title is refused (USAGE), nothing written', () => {
  const home = tmpDir();
  for (const title of ['', '   ']) {
    const r = baton(['session', 'new', title, '--json'], { home });
    assert.equal(r.code, 2);
    assert.equal(r.json.error.code, 'USAGE');
    assert.match(r.json.error.message, /the title is empty/);
  }
  assert.deepEqual(fs.readdirSync(home), []);
});

test('install under BATON_HOME names the store in the entry; the entry writes there without BATON_HOME; verify runs it as the agent would', () => {
  const w = agentWorld();
  const r = baton(['install', 'claude', '--json'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, r.stderr);
  const settings = JSON.parse(fs.readFileSync(r.json.file, 'utf8'));
  const command: string = settings.hooks.UserPromptSubmit[0].hooks[0].command;
  assert.match(command, new RegExp(`hook claude --home ${w.store}$`));
  // The agent started without BATON_HOME: its hook still writes to the store baton installed for.
  const agentEnv: Record<string, string> = { ...(process.env as Record<string, string>), HOME: w.home, NO_COLOR: '1' };
  delete agentEnv.BATON_HOME;
  const payload = JSON.stringify({ session_id: 'agent-one', hook_event_name: 'UserPromptSubmit', prompt: 'hello', cwd: w.project });
  const run = spawnSync('/bin/sh', ['-c', command], { input: payload, env: agentEnv, cwd: w.project, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(fs.existsSync(join(w.store, 'sessions', 'agent-one', 'events.jsonl')), 'written to the store named in the entry');
  assert.equal(fs.existsSync(join(w.home, '.local', 'state', 'baton')), false, 'not to the default home');
  // verify runs the entry as it is (no BATON_HOME of its own): an entry naming another store fails.
  const ok = baton(['verify', 'claude', '--json'], { env: w.env, cwd: w.project });
  assert.equal(ok.code, 0, ok.stdout);
  const other = join(w.root, 'other-store');
  const bad = baton(['--home', other, 'verify', 'claude', '--json'], { env: w.env, cwd: w.project });
  assert.equal(bad.code, 2);
  assert.match(bad.json.entries[0].problems.join(' '), new RegExp(`writes to the store ${w.store}, not ${other}`));
  assert.equal(fs.existsSync(other), false, 'verify writes nothing');
});

test('pointer migrate: the dry run prints the generation --apply writes', () => {
  const home = tmpDir();
  const work = tmpDir();
  const file = join(work, 'v1.json');
  fs.writeFileSync(file, JSON.stringify({ envelope_version: 1, session_id: 'migrated', task_id: '0b0e7a6c-3f5e-4d2a-9c1b-5e8f2a7d4c10', text: 'Goal: retries', written_at: '2026-01-02T03:04:05Z' }));
  const dry = baton(['pointer', 'migrate', file, '--json'], { home, cwd: work });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(fs.readdirSync(home), [], 'a dry run writes nothing');
  const again = baton(['pointer', 'migrate', file, '--json'], { home, cwd: work });
  assert.equal(again.json.state.generation, dry.json.state.generation);
  const apply = baton(['pointer', 'migrate', file, '--apply', '--json'], { home, cwd: work });
  assert.equal(apply.code, 0, apply.stderr);
  const written = JSON.parse(fs.readFileSync(join(home, 'sessions', 'migrated', 'state.json'), 'utf8'));
  assert.equal(written.generation, dry.json.state.generation);
  assert.deepEqual(written, dry.json.state);
});

test('the demo prints no path into the temporary store it removes; with --keep the paths are true', () => {
  const r = baton(['demo']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /baton-demo-/);
  assert.match(r.stdout, /PUBLISHER=.* --home <temporary store> pointer publish/);
  assert.match(r.stdout, /The store was temporary and is removed/);
  const k = baton(['demo', '--keep', '--json']);
  assert.equal(k.code, 0, k.stderr);
  assert.ok(fs.existsSync(k.json.store), 'the kept store is there');
  fs.rmSync(dirname(k.json.store), { recursive: true, force: true });
});
