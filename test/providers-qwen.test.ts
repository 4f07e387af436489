// Qwen Code through a harness that behaves as Qwen Code 0.24.4 does: the settings `baton
// install qwen` wrote, commands run as configured with $QWEN_PROJECT_DIR, the payloads the
// real program sent (test/fixtures/providers/qwen/observed-0.24.4-*.jsonl).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type AgentWorld, BIN, FIXTURES, agentWorld, baton, readJsonl, treeHash } from './helpers.ts';
import { runProviderEvent } from './harness/providers.ts';

const worlds: AgentWorld[] = [];
after(() => {
  for (const w of worlds) fs.rmSync(w.root, { recursive: true, force: true });
});

function world(extra: Record<string, string | undefined> = { BATON_BIN: BIN }): AgentWorld {
  const w = agentWorld(extra);
  worlds.push(w);
  return w;
}

const settingsFiles = (w: AgentWorld) => [join(w.home, '.qwen/settings.json'), join(w.project, '.qwen/settings.json')];

function observed(name: string, cwd: string): Record<string, unknown>[] {
  return fs
    .readFileSync(join(FIXTURES, 'qwen', name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => ({ ...JSON.parse(l), cwd }));
}

const events = (w: AgentWorld, sid: string): any[] => readJsonl(join(w.store, 'sessions', sid, 'events.jsonl'));

function ok(w: AgentWorld, args: string[]) {
  const r = baton(args, { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
}

test('qwen (project scope): the observed print-mode runs inject the pointer at start and prompt; no SessionEnd leaves the episode open', () => {
  const w = world();
  ok(w, ['install', 'qwen', '--scope', 'project']);
  const settings = JSON.parse(fs.readFileSync(join(w.project, '.qwen/settings.json'), 'utf8'));
  const entry = settings.hooks.SessionStart[0].hooks[0];
  assert.equal(entry.command, '"$QWEN_PROJECT_DIR"/.baton/hooks/qwen');
  assert.equal(entry.timeout, 10000, 'Qwen command-hook timeouts are milliseconds');
  assert.equal(entry.name, 'baton');
  assert.ok(fs.statSync(join(w.project, '.baton/hooks/qwen')).mode & 0o100, 'the shim is executable');
  // Stop is baton's turn-end (the transcript aspect): wired like the others.
  let sid = '';
  for (const p of observed('observed-0.24.4-print-resume-compress.jsonl', w.project)) {
    sid = String(p.session_id);
    const r = runProviderEvent({ provider: 'qwen', settingsFiles: settingsFiles(w), payload: p, projectDir: w.project, env: w.env });
    assert.deepEqual(r.errors, [], String(p.hook_event_name));
    assert.equal(r.blocked, false);
    assert.equal(r.runs.length, 1, String(p.hook_event_name));
    if (p.hook_event_name === 'SessionStart' && p.source === 'startup') assert.match(r.contexts[0] ?? '', /^TASK_POINTER_V2/);
    if (p.hook_event_name === 'PreCompact') assert.deepEqual(r.contexts, []);
  }
  const ev = events(w, sid);
  const opened = ev.filter((e) => e.type === 'episode.opened');
  assert.equal(opened.length, 1, 'the resumed starts keep the open episode');
  assert.equal(opened[0].payload.provider, 'qwen');
  assert.equal(opened[0].payload.source, 'startup');
  assert.equal(opened[0].payload.model, 'stub-model');
  assert.deepEqual(
    ev.filter((e) => e.type === 'prompt.submitted').map((e) => e.payload.text),
    ['say hi', 'again'],
  );
  assert.equal(ev.filter((e) => e.type === 'episode.closed').length, 0, 'qwen -p sends no SessionEnd');
  const st = ok(w, ['status', '--json']);
  for (const row of ['qwen', 'qwen:session', 'qwen:pointer']) assert.equal(st.json.rows.find((r: any) => r.row === row).state, 'wired', row);
});

test('qwen (user scope): the interactive run ends with SessionEnd prompt_input_exit and the episode closes as closed', () => {
  const w = world({ BATON_BIN: undefined });
  ok(w, ['install', 'qwen']);
  let sid = '';
  for (const p of observed('observed-0.24.4-interactive-quit.jsonl', w.project)) {
    sid = String(p.session_id);
    const r = runProviderEvent({ provider: 'qwen', settingsFiles: settingsFiles(w), payload: p, projectDir: w.project, env: w.env });
    assert.deepEqual(r.errors, [], String(p.hook_event_name));
    if (p.hook_event_name === 'UserPromptSubmit') assert.equal(r.contexts.length, 1);
  }
  const closed = events(w, sid).filter((e) => e.type === 'episode.closed');
  assert.equal(closed.length, 1);
  assert.equal(closed[0].payload.reason, 'prompt_input_exit');
  assert.equal(closed[0].payload.outcome, 'closed');
  assert.equal(closed[0].payload.prompts, 1);
});

test('qwen: install then uninstall gives back the user settings byte for byte; verify runs every entry and writes nothing', () => {
  const w = world();
  const file = join(w.home, '.qwen', 'settings.json');
  fs.mkdirSync(join(w.home, '.qwen'));
  // A user's own settings, with a comment, tabs and a foreign hook (Qwen reads JSONC).
  const original =
    '{\n\t// my model\n\t"security": {"auth": {"selectedType": "openai"}},\n\t"hooks": {\n\t\t"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n\t}\n}\n';
  fs.writeFileSync(file, original);
  ok(w, ['install', 'qwen']);
  const wired = fs.readFileSync(file, 'utf8');
  assert.notEqual(wired, original);
  assert.ok(wired.startsWith('{\n\t// my model\n'), 'the user bytes before the hooks are untouched');
  const storeBefore = fs.existsSync(w.store) ? fs.readdirSync(w.store, { recursive: true }).length : 0;
  const v = baton(['verify', 'qwen', '--json'], { env: w.env, cwd: w.project });
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.json.entries.length, 5, 'SessionStart, UserPromptSubmit, PreCompact, SessionEnd and Stop (turn end)');
  for (const r of v.json.entries) assert.equal(r.ok, true, `${r.event}: ${r.problems.join('; ')}`);
  assert.equal(fs.existsSync(w.store) ? fs.readdirSync(w.store, { recursive: true }).length : 0, storeBefore);
  ok(w, ['uninstall', 'qwen']);
  assert.equal(fs.readFileSync(file, 'utf8'), original);
  assert.equal(fs.existsSync(`${file}.baton-backup`), false);
});

test('qwen: the UserPromptSubmit Qwen fires again for a tool result (prompt "", no submitted_prompt) is no prompt: nothing archived, the pointer stays CLEAN', () => {
  const w = world();
  ok(w, ['install', 'qwen', '--scope', 'project']);
  const [prompt, continuation] = observed('observed-0.24.4-tool-continuation.jsonl', w.project);
  const sid = String(prompt.session_id);
  const first = runProviderEvent({ provider: 'qwen', settingsFiles: settingsFiles(w), payload: prompt, projectDir: w.project, env: w.env });
  assert.equal(first.contexts.length, 1);
  const before = treeHash(join(w.store, 'sessions', sid));
  const r = runProviderEvent({ provider: 'qwen', settingsFiles: settingsFiles(w), payload: continuation, projectDir: w.project, env: w.env });
  assert.equal(r.runs.length, 1);
  assert.deepEqual([r.runs[0].code, r.runs[0].stdout, r.runs[0].stderr], [0, '', '']);
  assert.equal(treeHash(join(w.store, 'sessions', sid)), before, 'nothing written');
  assert.deepEqual(
    events(w, sid).filter((e) => e.type === 'prompt.submitted').map((e) => e.payload.text),
    ['Start the qwen task'],
  );
});
