// Skills (seed 003's runtime contract): `baton skill check` (WS301), baton's own skill
// installed into Claude Code's skills folder by `install claude --aspects skill`, covered by
// status, verify and uninstall; `skill record` writes the runtime.skill_* events.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function world() {
  const root = tmpDir();
  dirs.push(root);
  const home = join(root, 'home');
  const proj = join(root, 'proj');
  fs.mkdirSync(home);
  fs.mkdirSync(proj);
  return { root, home, proj, env: { HOME: home, BATON_HOME: join(root, 'store'), BATON_INSTANCE: 'tester' } };
}

test('skill check: a declared skill passes; a missing, wrong or absent declaration is WS301 with a corrected sample', () => {
  const w = world();
  const dir = join(w.root, 'my-skill');
  fs.mkdirSync(dir);
  const file = join(dir, 'SKILL.md');
  fs.writeFileSync(file, '---\nname: pdf-to-markdown\nruntimes:\n  - cli\n  - web\n  - ide-skill\ncontext-protocol: world-session-v1\nsession-access:\n  read: true\n  write: true\n  artifacts: ["*.md", "*.json"]\n---\n\nBody.\n');
  const ok = baton(['skill', 'check', dir, '--json'], { env: w.env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.json.name, 'pdf-to-markdown');
  assert.deepEqual(ok.json.runtimes, ['cli', 'web', 'ide-skill']);
  assert.deepEqual(ok.json.session_access, { read: 'true', write: 'true', artifacts: '["*.md", "*.json"]' });
  assert.deepEqual(ok.json.warnings, []);
  for (const [text, why] of [
    ['---\nname: x\nruntimes: [cli]\n---\n', /does not declare context-protocol/],
    ['---\nname: x\ncontext-protocol: world-session-v0\n---\n', /"world-session-v0", not world-session-v1/],
    ['# no frontmatter\ncontext-protocol: world-session-v1\n', /no YAML frontmatter/],
  ] as [string, RegExp][]) {
    fs.writeFileSync(file, text);
    const r = baton(['skill', 'check', file, '--json'], { env: w.env });
    assert.equal(r.code, 2, text);
    assert.equal(r.json.error.code, 'WS301', text);
    assert.match(r.json.error.message, why);
    assert.match(r.json.error.sample, /\ncontext-protocol: world-session-v1\n/);
    assert.match(r.stderr, /^baton: WS301 /);
  }
});

test('install claude --aspects skill writes ~/.claude/skills/baton/SKILL.md only; idempotent; status, verify and uninstall cover it', () => {
  const w = world();
  const r = baton(['install', 'claude', '--aspects', 'skill', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(r.code, 0, r.stderr);
  const file = join(w.home, '.claude', 'skills', 'baton', 'SKILL.md');
  assert.equal(r.json.skill.file, file);
  assert.equal(r.json.skill.written, true);
  assert.equal(fs.existsSync(join(w.home, '.claude', 'settings.json')), false, 'no hook entries were asked for');
  const text = fs.readFileSync(file, 'utf8');
  for (const want of ['context-protocol: world-session-v1', 'baton pointer show', 'baton pointer publish', 'baton ref capture', 'baton session artifact add']) assert.ok(text.includes(want), want);
  const check = baton(['skill', 'check', file, '--json'], { env: w.env });
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.json.name, 'baton');
  const before = treeHash(w.home);
  const again = baton(['install', 'claude', '--aspects', 'skill', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(again.json.skill.written, false);
  assert.equal(treeHash(w.home), before, 'a second install changes nothing');
  const st = baton(['status', '--json'], { env: w.env, cwd: w.proj });
  assert.deepEqual(st.json.rows.find((x: { row: string }) => x.row === 'claude:skill').state, 'wired');
  const v = baton(['verify', 'claude', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(v.code, 0, v.stdout);
  assert.deepEqual(v.json.entries.map((e: { event: string; ok: boolean }) => [e.event, e.ok]), [['SKILL.md', true]]);
  const u = baton(['uninstall', 'claude', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(u.code, 0, u.stderr);
  assert.deepEqual(u.json.skill_removed, [file]);
  assert.equal(fs.existsSync(join(w.home, '.claude', 'skills', 'baton')), false);
  assert.equal(baton(['status', '--json'], { env: w.env, cwd: w.proj }).json.rows.find((x: { row: string }) => x.row === 'claude:skill').state, 'absent');
});

test('project scope goes to .claude/skills; with hook aspects both are installed', () => {
  const w = world();
  const r = baton(['install', 'claude', '--scope', 'project', '--aspects', 'session,skill', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(join(w.proj, '.claude', 'skills', 'baton', 'SKILL.md')));
  const settings = JSON.parse(fs.readFileSync(join(w.proj, '.claude', 'settings.json'), 'utf8'));
  assert.deepEqual(Object.keys(settings.hooks).sort(), ['SessionEnd', 'SessionStart']);
  assert.match(settings.hooks.SessionStart[0].hooks[0].command, /--aspects session$/);
});

test("a SKILL.md that is not baton's is refused (HK101) untouched; --force replaces it keeping a backup; other providers refuse the aspect", () => {
  const w = world();
  const dir = join(w.home, '.claude', 'skills', 'baton');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(join(dir, 'SKILL.md'), '---\nname: baton\ndescription: my own\n---\n');
  const before = treeHash(w.root);
  const r = baton(['install', 'claude', '--aspects', 'skill,session', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'HK101');
  assert.equal(treeHash(w.root), before, 'neither the skill nor the hook entries were written');
  assert.equal(baton(['status', '--json'], { env: w.env, cwd: w.proj }).json.rows.find((x: { row: string }) => x.row === 'claude:skill').state, 'foreign');
  const u = baton(['uninstall', 'claude', '--json'], { env: w.env, cwd: w.proj });
  assert.deepEqual(u.json.skill_removed, [], "uninstall leaves a skill that is not baton's");
  const f = baton(['install', 'claude', '--aspects', 'skill', '--force', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(f.code, 0, f.stderr);
  assert.equal(fs.readFileSync(join(dir, 'SKILL.md.baton-backup'), 'utf8'), '---\nname: baton\ndescription: my own\n---\n');
  const c = baton(['install', 'codex', '--aspects', 'skill', '--json'], { env: w.env, cwd: w.proj });
  assert.equal(c.code, 2);
  assert.equal(c.json.error.code, 'USAGE');
  assert.equal(fs.existsSync(join(w.home, '.codex')), false);
});

test('skill record appends runtime.skill_invoked and runtime.skill_completed (no lease needed)', () => {
  const w = world();
  const id = baton(['session', 'new', 'With a skill', '--cwd', w.proj], { env: w.env }).stdout.trim();
  assert.equal(baton(['session', 'release', id], { env: w.env }).code, 0);
  const a = baton(['skill', 'record', id, 'invoked', '--skill', 'pdf-to-markdown', '--runtime', 'cli', '--degraded', '--unavailable', 'fs.write', '--json'], { env: w.env });
  assert.equal(a.code, 0, a.stderr);
  const b = baton(['skill', 'record', id, 'completed', '--skill', 'pdf-to-markdown', '--result', 'artifacts/out.md', '--json'], { env: w.env });
  assert.equal(b.code, 0, b.stderr);
  const log = readJsonl(join(w.env.BATON_HOME, 'sessions', id, 'events.jsonl'));
  assert.deepEqual(log.slice(-2).map((e) => [e.type, e.actor, e.payload]), [
    ['runtime.skill_invoked', 'agent', { skill_name: 'pdf-to-markdown', runtime: 'cli', degraded: true, unavailable_capabilities: ['fs.write'] }],
    ['runtime.skill_completed', 'agent', { skill_name: 'pdf-to-markdown', result_path: 'artifacts/out.md' }],
  ]);
  const bad = baton(['skill', 'record', id, 'started', '--skill', 'x', '--json'], { env: w.env });
  assert.equal(bad.json.error.code, 'USAGE');
});
