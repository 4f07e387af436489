// Every event of every provider through a harness that behaves as the provider does:
// settings written by `baton install`, commands run as configured, output read by the
// provider's rules.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type AgentWorld, BIN, FIXTURES, agentWorld, baton, readJsonl } from './helpers.ts';
import { type ProviderName, runProviderEvent } from './harness/providers.ts';

type World = AgentWorld;

const world = (): World => agentWorld({ BATON_BIN: BIN });

const SETTINGS: Record<ProviderName, (w: World) => string[]> = {
  claude: (w) => [join(w.home, '.claude/settings.json'), join(w.project, '.claude/settings.json'), join(w.project, '.claude/settings.local.json')],
  gemini: (w) => [join(w.home, '.gemini/settings.json'), join(w.project, '.gemini/settings.json')],
  codex: (w) => [join(w.home, '.codex/hooks.json'), join(w.project, '.codex/hooks.json')],
  qwen: (w) => [join(w.home, '.qwen/settings.json'), join(w.project, '.qwen/settings.json')],
  droid: (w) => [join(w.home, '.factory/settings.json'), join(w.project, '.factory/settings.json'), join(w.project, '.factory/settings.local.json')],
};

function fixture(provider: string, name: string, sid: string, cwd: string): Record<string, unknown> {
  const p = JSON.parse(fs.readFileSync(join(FIXTURES, provider, name), 'utf8'));
  return { ...p, session_id: sid, cwd };
}

function events(w: World, sid: string): any[] {
  return readJsonl(join(w.store, 'sessions', sid, 'events.jsonl'));
}

function install(w: World, provider: string, scope: string): void {
  const r = baton(['install', provider, '--scope', scope], { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, r.stderr);
}

test('claude: every event through Claude Code rules (project scope, shim found via BATON_BIN)', () => {
  const w = world();
  install(w, 'claude', 'project');
  const sid = randomUUID();
  const run = (name: string) => runProviderEvent({ provider: 'claude', settingsFiles: SETTINGS.claude(w), payload: fixture('claude', name, sid, w.project), projectDir: w.project, env: w.env });

  const start = run('SessionStart.startup.json');
  assert.equal(start.runs.length, 1);
  assert.deepEqual(start.errors, []);
  assert.equal(start.contexts.length, 1);
  assert.match(start.contexts[0], /^TASK_POINTER_V2/);
  assert.ok(events(w, sid).some((e) => e.type === 'episode.opened' && e.payload.provider === 'claude' && e.payload.source === 'startup'));

  const prompt = run('UserPromptSubmit.json');
  assert.deepEqual(prompt.errors, []);
  assert.equal(prompt.blocked, false);
  assert.equal(prompt.contexts.length, 1);
  const ps = events(w, sid).filter((e) => e.type === 'prompt.submitted');
  assert.equal(ps.length, 1);
  assert.equal(ps[0].payload.text, 'Write a function to calculate the factorial of a number');

  const pre = run('PreCompact.json');
  assert.deepEqual(pre.errors, []);
  assert.equal(pre.blocked, false);
  assert.deepEqual(pre.contexts, []);

  const end = run('SessionEnd.json');
  assert.deepEqual(end.errors, []);
  assert.equal(end.runs[0].stdout, '');
  const closed = events(w, sid).filter((e) => e.type === 'episode.closed');
  assert.equal(closed.length, 1);
  assert.equal(closed[0].payload.reason, 'other');
  assert.equal(closed[0].payload.outcome, 'interrupted');
  assert.equal(closed[0].payload.prompts, 1);
});

test('claude: user scope runs baton by absolute path; an older payload without cwd still works', () => {
  const w = world();
  install(w, 'claude', 'user');
  const sid = randomUUID();
  const payload = fixture('claude', 'SessionStart.startup.older.json', sid, w.project);
  delete payload.cwd;
  const start = runProviderEvent({ provider: 'claude', settingsFiles: SETTINGS.claude(w), payload, projectDir: w.project, env: { ...w.env, BATON_BIN: undefined } });
  assert.deepEqual(start.errors, []);
  assert.equal(start.contexts.length, 1);
  assert.equal(events(w, sid).filter((e) => e.type === 'episode.opened').length, 1);
});

test('claude: the observed 2.1.328 print-mode sequence opens and closes one episode as interrupted', () => {
  const w = world();
  install(w, 'claude', 'project');
  const lines = fs.readFileSync(join(FIXTURES, 'claude', 'observed-2.1.328.jsonl'), 'utf8').trim().split('\n');
  let sid = '';
  for (const l of lines) {
    const p = { ...JSON.parse(l), cwd: w.project };
    sid = p.session_id;
    const r = runProviderEvent({ provider: 'claude', settingsFiles: SETTINGS.claude(w), payload: p, projectDir: w.project, env: w.env });
    assert.deepEqual(r.errors, []);
  }
  const types = events(w, sid).map((e) => e.type);
  assert.deepEqual(types.filter((t) => t.startsWith('episode.') || t === 'prompt.submitted'), ['episode.opened', 'prompt.submitted', 'episode.closed']);
  assert.equal(events(w, sid).find((e) => e.type === 'episode.closed').payload.outcome, 'interrupted');
});

test('gemini: every event through Gemini CLI rules: JSON only on stdout, exit → closed', () => {
  const w = world();
  install(w, 'gemini', 'project');
  const settings = JSON.parse(fs.readFileSync(join(w.project, '.gemini/settings.json'), 'utf8'));
  assert.equal(settings.hooks.SessionStart[0].hooks[0].timeout, 10000, 'timeouts in milliseconds');
  const sid = randomUUID();
  const run = (name: string) => runProviderEvent({ provider: 'gemini', settingsFiles: SETTINGS.gemini(w), payload: fixture('gemini', name, sid, w.project), projectDir: w.project, env: w.env });
  for (const name of ['SessionStart.json', 'BeforeAgent.json', 'PreCompress.json', 'SessionEnd.json']) {
    const r = run(name);
    assert.deepEqual(r.errors, [], name);
    assert.deepEqual(r.userMessages, [], `${name}: no plain text (it would be a UI message, not context)`);
    assert.equal(r.blocked, false);
    if (name === 'SessionStart.json' || name === 'BeforeAgent.json') {
      assert.equal(r.contexts.length, 1, name);
      assert.match(r.contexts[0], /^TASK_POINTER_V2/);
    }
    for (const x of r.runs) if (x.stdout.trim()) JSON.parse(x.stdout);
  }
  const ev = events(w, sid);
  assert.equal(ev.filter((e) => e.type === 'prompt.submitted')[0].payload.text, 'Explain the failing test in test/store.test.ts');
  const closed = ev.find((e) => e.type === 'episode.closed');
  assert.equal(closed.payload.reason, 'exit');
  assert.equal(closed.payload.outcome, 'closed');
});

test('codex: every event through Codex rules, SessionEnd included (Codex 0.171.0 sends it): the episode closes, codex:session is wired', () => {
  const w = world();
  install(w, 'codex', 'project');
  const sid = randomUUID();
  const run = (name: string) => runProviderEvent({ provider: 'codex', settingsFiles: SETTINGS.codex(w), payload: fixture('codex', name, sid, w.project), projectDir: w.project, env: w.env });
  const start = run('SessionStart.json');
  assert.deepEqual(start.errors, []);
  assert.equal(start.contexts.length, 1);
  assert.match(start.contexts[0], /^TASK_POINTER_V2/);
  const prompt = run('UserPromptSubmit.json');
  assert.deepEqual(prompt.errors, []);
  assert.equal(prompt.contexts.length, 1);
  const pre = run('PreCompact.json');
  assert.deepEqual(pre.errors, []);
  // The end payload as Codex CLI 0.171.0 sent it (test/fixtures/providers/codex/observed-0.171.0-exec-resume.jsonl).
  const endPayload = { session_id: sid, transcript_path: null, cwd: w.project, hook_event_name: 'SessionEnd', reason: 'other' };
  const end = runProviderEvent({ provider: 'codex', settingsFiles: SETTINGS.codex(w), payload: endPayload, projectDir: w.project, env: w.env });
  assert.deepEqual(end.errors, []);
  const ev = events(w, sid);
  assert.equal(ev.filter((e) => e.type === 'episode.opened').length, 1);
  const closed = ev.filter((e) => e.type === 'episode.closed');
  assert.equal(closed.length, 1);
  assert.equal(closed[0].payload.outcome, 'interrupted', 'codex exec ends with reason other, as claude -p does');
  const st = baton(['status', '--json'], { env: w.env, cwd: w.project });
  const row = st.json.rows.find((r: any) => r.row === 'codex:session');
  assert.equal(row.state, 'wired');
  assert.equal(st.json.rows.find((r: any) => r.row === 'codex').state, 'wired');
  assert.equal(st.json.rows.find((r: any) => r.row === 'codex:pointer').state, 'wired');
});
