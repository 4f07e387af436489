// install / uninstall edit the settings TEXT: foreign keys, entries and formatting kept,
// idempotent, reversible to the byte; earlier baton entries reported, not overwritten;
// the POSIX shim finds baton or says so and exits 0.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, FIXTURES, baton, tmpDir, treeHash } from './helpers.ts';

const EXAMPLE = fs.readFileSync(join(FIXTURES, 'claude', 'settings.example.json'), 'utf8');

function project(settings?: string, file = '.claude/settings.json') {
  const root = tmpDir();
  const proj = join(root, 'proj');
  const home = join(root, 'home');
  fs.mkdirSync(proj);
  fs.mkdirSync(home);
  if (settings !== undefined) {
    fs.mkdirSync(join(proj, file, '..'), { recursive: true });
    fs.writeFileSync(join(proj, file), settings);
  }
  const env = { HOME: home, BATON_HOME: join(root, 'store') };
  return { root, proj, home, env, file: join(proj, file) };
}

const VARIANTS: [string, string][] = [
  ['settings.example.json as it is', EXAMPLE],
  ['tab indentation', `${JSON.stringify(JSON.parse(EXAMPLE), null, '\t')}\n`],
  ['four spaces and CRLF line ends', `${JSON.stringify(JSON.parse(EXAMPLE), null, 4).replace(/\n/g, '\r\n')}\r\n`],
  ['one line, no trailing newline', JSON.stringify(JSON.parse(EXAMPLE))],
];

for (const [name, original] of VARIANTS) {
  test(`install into ${name}: foreign entries, keys and formatting kept; second install byte-identical; uninstall gives back the original bytes`, () => {
    const p = project(original);
    const r1 = baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj });
    assert.equal(r1.code, 0, r1.stderr);
    const after = fs.readFileSync(p.file, 'utf8');
    const j = JSON.parse(after);
    assert.deepEqual(j.permissions, { allow: ['Bash(npm test)'] });
    assert.deepEqual(j.hooks.PreToolUse, JSON.parse(EXAMPLE).hooks.PreToolUse);
    for (const ev of ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd']) {
      assert.equal(j.hooks[ev][0].hooks[0].command, '"$CLAUDE_PROJECT_DIR"/.baton/hooks/claude');
      assert.equal(j.hooks[ev][0].hooks[0].timeout, 10);
    }
    // The original text is still there, byte for byte, up to the point of insertion.
    const cut = original.lastIndexOf(']');
    assert.equal(after.slice(0, cut + 1), original.slice(0, cut + 1));
    if (original.includes('\t')) assert.match(after, /\n\t\t"SessionStart": \[\n\t\t\t\{/);
    if (original.includes('\r\n')) assert.ok(!/[^\r]\n/.test(after), 'CRLF kept');
    assert.equal(fs.readFileSync(`${p.file}.baton-backup`, 'utf8'), original, 'backup beside the file');
    const r2 = baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj });
    assert.equal(r2.code, 0);
    assert.equal(fs.readFileSync(p.file, 'utf8'), after, 'second install changes no byte');
    const u = baton(['uninstall', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj });
    assert.equal(u.code, 0, u.stderr);
    assert.equal(fs.readFileSync(p.file, 'utf8'), original);
    assert.equal(fs.existsSync(join(p.proj, '.baton')), false, 'the shim goes once nothing calls it');
  });
}

test('uninstall removes exactly baton entries: a foreign hook in the same event stays', () => {
  const p = project(EXAMPLE);
  assert.equal(baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj }).code, 0);
  const j = JSON.parse(fs.readFileSync(p.file, 'utf8'));
  j.hooks.SessionStart.push({ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }] });
  j.hooks.SessionEnd[0].hooks.push({ type: 'command', command: '/usr/local/bin/log-end' });
  fs.writeFileSync(p.file, JSON.stringify(j, null, 2));
  assert.equal(baton(['uninstall', 'claude'], { env: p.env, cwd: p.proj }).code, 0);
  const k = JSON.parse(fs.readFileSync(p.file, 'utf8'));
  assert.deepEqual(k.hooks.SessionStart, [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }] }]);
  assert.deepEqual(k.hooks.SessionEnd, [{ hooks: [{ type: 'command', command: '/usr/local/bin/log-end' }] }]);
  assert.equal(k.hooks.UserPromptSubmit, undefined);
  assert.deepEqual(k.hooks.PreToolUse, JSON.parse(EXAMPLE).hooks.PreToolUse);
});

test('an earlier baton entry that differs is reported, not overwritten (HK101, nothing changed); --force replaces it', () => {
  const p = project(EXAMPLE);
  assert.equal(baton(['install', 'claude', '--scope', 'project', '--aspects', 'session,pointer'], { env: p.env, cwd: p.proj }).code, 0);
  const before = treeHash(p.root);
  const r = baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^baton: HK101 .*--aspects session,pointer.*--force/);
  assert.equal(treeHash(p.root), before);
  const f = baton(['install', 'claude', '--scope', 'project', '--force'], { env: p.env, cwd: p.proj });
  assert.equal(f.code, 0, f.stderr);
  const j = JSON.parse(fs.readFileSync(p.file, 'utf8'));
  assert.equal(j.hooks.SessionStart.length, 1);
  assert.equal(j.hooks.SessionStart[0].hooks[0].command, '"$CLAUDE_PROJECT_DIR"/.baton/hooks/claude');
});

test('--dry-run prints the diff and changes nothing', () => {
  const p = project(EXAMPLE);
  const before = treeHash(p.root);
  const r = baton(['install', 'claude', '--scope', 'project', '--dry-run'], { env: p.env, cwd: p.proj });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\+ {5}"SessionStart": \[$/m);
  assert.match(r.stdout, /would write/);
  assert.equal(treeHash(p.root), before);
});

test('--aspects is encoded in the installed command and decides which events get entries', () => {
  const p = project();
  const r = baton(['install', 'claude', '--aspects', 'prompt'], { env: p.env, cwd: p.proj });
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(fs.readFileSync(join(p.home, '.claude/settings.json'), 'utf8'));
  assert.deepEqual(Object.keys(j.hooks), ['UserPromptSubmit']);
  assert.match(j.hooks.UserPromptSubmit[0].hooks[0].command, /baton\.cjs hook claude --home \S+ --aspects prompt$/);
  const st = baton(['status', '--json'], { env: p.env, cwd: p.proj });
  const state = (row: string) => st.json.rows.find((x: any) => x.row === row).state;
  assert.equal(state('claude'), 'wired');
  assert.equal(state('claude:session'), 'absent');
  assert.equal(state('claude:pointer'), 'absent', 'the prompt entry does not run the pointer aspect');
});

test('codex install says the hooks must be trusted in /hooks; gemini gets millisecond timeouts and a name', () => {
  const p = project();
  const c = baton(['install', 'codex', '--scope', 'project'], { env: p.env, cwd: p.proj });
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stdout, /trust/);
  assert.match(c.stdout, /\/hooks/);
  const cj = JSON.parse(fs.readFileSync(join(p.proj, '.codex/hooks.json'), 'utf8'));
  assert.deepEqual(Object.keys(cj.hooks), ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd', 'Stop']);
  const g = baton(['install', 'gemini'], { env: p.env, cwd: p.proj });
  assert.equal(g.code, 0, g.stderr);
  const gj = JSON.parse(fs.readFileSync(join(p.home, '.gemini/settings.json'), 'utf8'));
  assert.deepEqual(gj.hooks.BeforeAgent[0].hooks[0], { type: 'command', name: 'baton', command: gj.hooks.BeforeAgent[0].hooks[0].command, timeout: 10000 });
  assert.equal(baton(['install', 'gemini', '--scope', 'local'], { env: p.env, cwd: p.proj }).code, 2);
});

test('a settings file that is not JSON is refused (HK102) and left alone', () => {
  const p = project('{ "hooks": [ broken');
  const before = treeHash(p.root);
  const r = baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^baton: HK102 /);
  assert.equal(treeHash(p.root), before);
});

test('the shim with no baton reachable: exit 0, one stderr line, no stdout', () => {
  const p = project();
  assert.equal(baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj }).code, 0);
  const shim = join(p.proj, '.baton/hooks/claude');
  assert.equal(fs.statSync(shim).mode & 0o111, 0o111);
  const r = spawnSync('/bin/sh', ['-c', `"${shim}"`], {
    input: fs.readFileSync(join(FIXTURES, 'claude', 'SessionStart.startup.json')),
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: p.home, BATON_HOME: p.env.BATON_HOME },
    cwd: p.proj,
  });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /baton: hook claude: baton not found/);
  assert.equal(fs.existsSync(p.env.BATON_HOME), false);
});

test("the shim finds the repo's node_modules/.bin/baton", () => {
  const p = project();
  assert.equal(baton(['install', 'claude', '--scope', 'project'], { env: p.env, cwd: p.proj }).code, 0);
  fs.mkdirSync(join(p.proj, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(BIN, join(p.proj, 'node_modules/.bin/baton'));
  const r = spawnSync('/bin/sh', ['-c', '"$CLAUDE_PROJECT_DIR"/.baton/hooks/claude'], {
    input: JSON.stringify({ session_id: 'shim-test', hook_event_name: 'SessionStart', source: 'startup', cwd: p.proj }),
    encoding: 'utf8',
    env: { PATH: `${process.execPath.replace(/\/node$/, '')}:/usr/bin:/bin`, HOME: p.home, BATON_HOME: p.env.BATON_HOME, CLAUDE_PROJECT_DIR: p.proj },
    cwd: p.proj,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, /^TASK_POINTER_V2/);
});

test('a symlinked settings file stays a symlink; its target is edited', () => {
  const p = project();
  const real = join(p.root, 'dotfiles-settings.json');
  fs.writeFileSync(real, EXAMPLE);
  fs.mkdirSync(join(p.home, '.claude'));
  fs.symlinkSync(real, join(p.home, '.claude/settings.json'));
  assert.equal(baton(['install', 'claude'], { env: p.env, cwd: p.proj }).code, 0);
  assert.ok(fs.lstatSync(join(p.home, '.claude/settings.json')).isSymbolicLink());
  assert.ok(JSON.parse(fs.readFileSync(real, 'utf8')).hooks.SessionStart);
  assert.equal(baton(['uninstall', 'claude'], { env: p.env, cwd: p.proj }).code, 0);
  assert.equal(fs.readFileSync(real, 'utf8'), EXAMPLE);
});
