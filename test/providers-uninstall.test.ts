// uninstall gives back the state before install: a settings file baton created is removed
// (and the project folders it leaves empty), a backup install made is removed when the
// restore is byte-identical, kept when the user changed the file since; a project-scope
// install + uninstall leaves no untracked file in the repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { type AgentWorld, FIXTURES, agentWorld, baton } from './helpers.ts';

const PROVIDERS = ['claude', 'codex', 'gemini'];
const EXAMPLE = fs.readFileSync(join(FIXTURES, 'claude', 'settings.example.json'), 'utf8');

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((n) => fs.statSync(join(dir, n)).isFile()).sort();
}

const run = (w: AgentWorld, args: string[]) => {
  const r = baton(args, { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
};

test('user scope, no settings before: install then uninstall leaves no file in HOME', () => {
  const w = agentWorld();
  for (const p of PROVIDERS) run(w, ['install', p]);
  assert.ok(filesUnder(w.home).length >= 3);
  const u = run(w, ['uninstall', 'claude', '--scope', 'user', '--json']);
  assert.equal(u.json.results[0].file_removed, true);
  for (const p of ['codex', 'gemini']) run(w, ['uninstall', p]);
  assert.deepEqual(filesUnder(w.home), []);
});

test('a settings file that was there: uninstall restores its bytes and removes the backup', () => {
  const w = agentWorld();
  const file = join(w.home, '.claude', 'settings.json');
  fs.mkdirSync(join(w.home, '.claude'));
  fs.writeFileSync(file, EXAMPLE);
  run(w, ['install', 'claude', '--aspects', 'session']);
  assert.equal(fs.readFileSync(`${file}.baton-backup`, 'utf8'), EXAMPLE);
  // A --force reinstall with other aspects keeps the backup of the original, not of the wired file.
  run(w, ['install', 'claude', '--force']);
  assert.equal(fs.readFileSync(`${file}.baton-backup`, 'utf8'), EXAMPLE);
  const u = run(w, ['uninstall', 'claude', '--json']);
  const user = u.json.results.find((r: { scope: string }) => r.scope === 'user');
  assert.equal(user.backup_removed, `${file}.baton-backup`);
  assert.equal(fs.readFileSync(file, 'utf8'), EXAMPLE);
  assert.deepEqual(filesUnder(w.home), ['.claude/settings.json']);
});

test('a file the user changed after install: uninstall removes the entries and keeps the backup of the original', () => {
  const w = agentWorld();
  const file = join(w.home, '.claude', 'settings.json');
  fs.mkdirSync(join(w.home, '.claude'));
  fs.writeFileSync(file, EXAMPLE);
  run(w, ['install', 'claude']);
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  j.model = 'opus';
  fs.writeFileSync(file, JSON.stringify(j, null, 2));
  const u = run(w, ['uninstall', 'claude']);
  assert.match(u.stdout, /backup of the file before install kept/);
  const k = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(k.model, 'opus');
  assert.equal(k.hooks.SessionStart, undefined);
  assert.equal(fs.readFileSync(`${file}.baton-backup`, 'utf8'), EXAMPLE, 'the backup still holds the state before install');
});

test('a created file the user added to is kept (only baton entries go)', () => {
  const w = agentWorld();
  run(w, ['install', 'gemini']);
  const file = join(w.home, '.gemini', 'settings.json');
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  j.theme = 'dark';
  fs.writeFileSync(file, JSON.stringify(j));
  run(w, ['uninstall', 'gemini']);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { theme: 'dark' });
});

test('project scope in a git repository: install + uninstall leaves no untracked file', () => {
  const w = agentWorld();
  const git = (...args: string[]) => spawnSync('git', ['-C', w.project, ...args], { encoding: 'utf8' });
  assert.equal(git('init', '-q').status, 0);
  for (const p of PROVIDERS) run(w, ['install', p, '--scope', 'project']);
  assert.notEqual(git('status', '--porcelain', '--untracked-files=all').stdout, '');
  for (const p of PROVIDERS) run(w, ['uninstall', p]);
  assert.equal(git('status', '--porcelain', '--untracked-files=all').stdout, '');
  assert.deepEqual(
    fs.readdirSync(w.project).filter((n) => n !== '.git'),
    [],
    'no folder left behind either',
  );
  // The user's own file in .claude/ keeps the folder.
  fs.mkdirSync(join(w.project, '.claude'));
  fs.writeFileSync(join(w.project, '.claude', 'commands.md'), 'mine');
  run(w, ['install', 'claude', '--scope', 'project']);
  run(w, ['uninstall', 'claude']);
  assert.deepEqual(filesUnder(join(w.project, '.claude')), ['commands.md']);
  assert.equal(relative(w.project, join(w.project, '.baton')), '.baton');
  assert.ok(!fs.existsSync(join(w.project, '.baton')));
});

test('uninstall --dry-run changes nothing', () => {
  const w = agentWorld();
  run(w, ['install', 'claude']);
  const before = filesUnder(w.home).map((f) => [f, fs.readFileSync(join(w.home, f), 'utf8')]);
  const r = run(w, ['uninstall', 'claude', '--dry-run']);
  assert.match(r.stdout, /would remove 5 entries/);
  assert.deepEqual(
    filesUnder(w.home).map((f) => [f, fs.readFileSync(join(w.home, f), 'utf8')]),
    before,
  );
});

test('install gemini at user scope says nothing about project hooks; at project scope it does', () => {
  const w = agentWorld();
  const user = run(w, ['install', 'gemini']);
  assert.doesNotMatch(user.stdout, /project hooks/);
  assert.equal(run(w, ['install', 'gemini', '--json']).json.note, undefined);
  const proj = run(w, ['install', 'gemini', '--scope', 'project']);
  assert.match(proj.stdout, /confirm changed project hooks/);
});
