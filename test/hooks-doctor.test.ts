// `baton doctor` finds problems and names the command that fixes each; `baton status`
// rows; `baton demo` plays a whole Claude Code session through the real hook.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openEpisode } from '../src/hooks/episodes.ts';
import { FsStore } from '../src/store/store.ts';
import { agentWorld, baton, treeHash } from './helpers.ts';

test('doctor on a healthy store: exit 0, sizes by kind, nothing written', () => {
  const w = agentWorld();
  baton(['hook', 'claude'], { env: w.env, input: JSON.stringify({ session_id: randomUUID(), hook_event_name: 'SessionStart', source: 'startup', cwd: w.project }) });
  const before = treeHash(w.store);
  const r = baton(['doctor', '--json'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, r.stdout);
  assert.equal(r.json.ok, true);
  assert.equal(r.json.sessions, 1);
  assert.ok(r.json.sizes.logs > 0);
  assert.ok(r.json.sizes.contexts > 0);
  assert.equal(r.json.open_episodes.length, 1);
  assert.equal(r.json.node.ok, true);
  assert.equal(treeHash(w.store), before);
});

test('doctor: an episode idle over 24 h, a corrupt log and a file readable by others → exit 2, each with its fix', () => {
  const w = agentWorld();
  const long = new Date(Date.now() - 3 * 24 * 3600 * 1000);
  const store = new FsStore(w.store, { clock: () => long });
  const writer = { surface: 'hook:claude', instanceId: 'hook:claude:old', actor: 'system' as const };
  store.ensure('old-one', { title: 'old', workspace: { cwd: w.project }, writer, createdBy: 'hook:claude' });
  openEpisode(store, 'old-one', { provider: 'claude', providerSessionId: 'old', source: 'startup' }, writer, long);
  store.ensure('broken', { title: 'b', workspace: { cwd: w.project }, writer });
  store.append('broken', [{ type: 'runtime.error', surface: 'hook:claude', actor: 'system', payload: { surface: 'x', message: 'm' } }], writer);
  store.append('broken', [{ type: 'runtime.error', surface: 'hook:claude', actor: 'system', payload: { surface: 'x', message: 'm' } }], writer);
  const log = join(w.store, 'sessions', 'broken', 'events.jsonl');
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  lines[1] = lines[1].replace('"m"', '"tampered"');
  fs.writeFileSync(log, lines.join('\n'));
  fs.chmodSync(join(w.store, 'sessions', 'old-one', 'manifest.json'), 0o644);
  const r = baton(['doctor'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stdout, /episode claude-[a-z0-9-]+ \(claude\) is open and idle for 72 h/);
  assert.match(r.stdout, /fix: baton episode close old-one --episode claude-[a-z0-9-]+ --reason other/);
  assert.match(r.stdout, /session broken: events log corrupt at line 2/);
  assert.match(r.stdout, /fix: baton session verify broken/);
  assert.match(r.stdout, /readable or writable by others/);
  assert.match(r.stdout, /fix: chmod -R go-rwx /);
});

test('doctor reports partial wiring with the install command that completes it', () => {
  const w = agentWorld();
  assert.equal(baton(['install', 'claude', '--scope', 'project'], { env: w.env, cwd: w.project }).code, 0);
  const f = join(w.project, '.claude/settings.json');
  const j = JSON.parse(fs.readFileSync(f, 'utf8'));
  delete j.hooks.SessionEnd;
  fs.writeFileSync(f, JSON.stringify(j, null, 2));
  const r = baton(['doctor', '--json'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2);
  const p = r.json.problems.find((x: any) => x.message.startsWith('claude:session'));
  assert.match(p.message, /missing SessionEnd/);
  assert.equal(p.fix, 'baton install claude --scope project');
  // One row per agent with its aspects; agents with nothing wired only with --all.
  const st = baton(['status'], { env: w.env, cwd: w.project });
  assert.match(st.stdout, /^claude\s+partial\s+project\s+prompt, session \(partial\), pointer, transcript \(partial\)\s+-\s+session: missing SessionEnd; transcript: missing SessionEnd$/m);
  assert.doesNotMatch(st.stdout, /^gemini/m);
  assert.equal(st.stdout.split('\n').filter(Boolean).length, 3, 'a header, claude, the app server');
  assert.match(baton(['status', '--all'], { env: w.env, cwd: w.project }).stdout, /^gemini\s+absent/m);
});

test('status: an entry of another baton is foreign', () => {
  const w = agentWorld();
  fs.mkdirSync(join(w.home, '.claude'));
  const cmd = '/opt/old/baton hook claude';
  const hooks = Object.fromEntries(['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd'].map((e) => [e, [{ hooks: [{ type: 'command', command: cmd }] }]]));
  fs.writeFileSync(join(w.home, '.claude/settings.json'), JSON.stringify({ hooks }));
  const st = baton(['status', '--json'], { env: w.env, cwd: w.project });
  assert.equal(st.json.rows.find((r: any) => r.row === 'claude').state, 'foreign');
  assert.equal(st.json.rows.find((r: any) => r.row === 'claude:session').state, 'foreign');
});

test('demo plays a Claude Code session through the real hook: the restart re-injects the published pointer', () => {
  const r = baton(['demo', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.ok, true);
  assert.ok(r.json.steps.every((s: any) => s.exit_code === 0));
  assert.equal(r.json.steps.find((s: any) => s.event === 'pointer publish').receipt.ok, true);
  const resumed = r.json.steps.find((s: any) => s.event === 'SessionStart(resume)');
  assert.match(resumed.injected, /POINTER_TEXT_BEGIN\nGoal: retries with backoff/);
  const types = r.json.events.map((e: any) => e.type);
  assert.equal(types.filter((t: string) => t === 'episode.opened').length, 2);
  assert.equal(types.filter((t: string) => t === 'episode.closed').length, 2);
  assert.equal(fs.existsSync(r.json.store), false, 'the temporary store is removed');
});

test('demo: the text shows every frozen start context it counts', () => {
  const r = baton(['demo']);
  assert.equal(r.code, 0, r.stderr);
  const m = r.stdout.match(/Frozen start contexts \((\d+)\)/);
  assert.ok(m, r.stdout);
  const shown = r.stdout.slice(m.index).match(/^ {2}contexts\/\S+\.md$/gm) ?? [];
  assert.equal(shown.length, Number(m[1]));
  assert.ok(shown.length >= 2);
});

test('doctor: wired in two scopes means every event runs twice → a problem with the uninstall that fixes it', () => {
  const w = agentWorld();
  assert.equal(baton(['install', 'claude'], { env: w.env, cwd: w.project }).code, 0);
  assert.equal(baton(['install', 'claude', '--scope', 'project'], { env: w.env, cwd: w.project }).code, 0);
  const r = baton(['doctor', '--json'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2);
  assert.ok(r.json.problems.some((p: any) => /wired in user and project scope/.test(p.message) && p.fix === 'baton uninstall claude --scope user'));
});
