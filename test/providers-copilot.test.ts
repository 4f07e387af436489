// GitHub Copilot CLI through a harness that behaves as Copilot 1.0.102 does with its hooks
// folders: the `baton.json` that `baton install copilot` owns, commands run through bash with
// the camelCase payloads the real program sent (test/fixtures/providers/copilot/), context
// read only from a top-level `additionalContext`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type AgentWorld, BIN, FIXTURES, agentWorld, baton, readJsonl, treeHash } from './helpers.ts';
import { runCopilotEvent } from './harness/providers.ts';

const worlds: AgentWorld[] = [];
after(() => {
  for (const w of worlds) fs.rmSync(w.root, { recursive: true, force: true });
});

function world(extra: Record<string, string | undefined> = { BATON_BIN: BIN }): AgentWorld {
  const w = agentWorld(extra);
  worlds.push(w);
  return w;
}

const hooksDirs = (w: AgentWorld) => [join(w.home, '.copilot/hooks'), join(w.project, '.github/hooks')];
const observed = (): { event: string; payload: Record<string, unknown> }[] =>
  fs
    .readFileSync(join(FIXTURES, 'copilot', 'observed-1.0.102-print-resume-compact.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const events = (w: AgentWorld, sid: string): any[] => readJsonl(join(w.store, 'sessions', sid, 'events.jsonl'));

function ok(w: AgentWorld, args: string[]) {
  const r = baton(args, { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((n) => fs.statSync(join(dir, n)).isFile()).sort();
}

for (const scope of ['user', 'project'] as const) {
  test(`copilot (${scope} scope): the observed runs inject the pointer at start and prompt, each run's sessionEnd complete closes its episode`, () => {
    const w = world(scope === 'user' ? { BATON_BIN: undefined } : { BATON_BIN: BIN });
    ok(w, ['install', 'copilot', '--scope', scope]);
    const file = scope === 'user' ? join(w.home, '.copilot/hooks/baton.json') : join(w.project, '.github/hooks/baton.json');
    const owned = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(owned.version, 1);
    assert.deepEqual(Object.keys(owned.hooks), ['sessionStart', 'userPromptSubmitted', 'preCompact', 'sessionEnd', 'agentStop']);
    assert.match(owned.hooks.sessionStart[0].bash, /^BATON_HOOK_EVENT=sessionStart /);
    assert.equal(owned.hooks.sessionStart[0].timeoutSec, 10);
    let sid = '';
    for (const { event, payload } of observed()) {
      sid = String(payload.sessionId);
      const r = runCopilotEvent({ hooksDirs: hooksDirs(w), event, payload: { ...payload, cwd: w.project }, projectDir: w.project, env: w.env });
      assert.deepEqual(r.errors, [], event);
      assert.equal(r.runs.length, 1, event);
      if (event === 'sessionStart' && payload.source === 'new') assert.match(r.contexts[0] ?? '', /^TASK_POINTER_V2/);
      if (event === 'userPromptSubmitted') assert.equal(r.contexts.length, 1, 'the prompt gets the block or its UNCHANGED line');
      if (event === 'preCompact' || event === 'sessionEnd') assert.deepEqual(r.contexts, []);
    }
    const ev = events(w, sid);
    const opened = ev.filter((e) => e.type === 'episode.opened');
    assert.deepEqual(
      opened.map((e) => [e.payload.provider, e.payload.source]),
      [
        ['copilot', 'startup'],
        ['copilot', 'resume'],
      ],
    );
    const closed = ev.filter((e) => e.type === 'episode.closed');
    assert.deepEqual(
      closed.map((e) => [e.payload.reason, e.payload.outcome]),
      [
        ['complete', 'closed'],
        ['complete', 'closed'],
      ],
    );
    assert.deepEqual(
      ev.filter((e) => e.type === 'prompt.submitted').map((e) => e.payload.text),
      ['say hi', 'again'],
    );
    const st = ok(w, ['status', '--json']);
    for (const row of ['copilot', 'copilot:session', 'copilot:pointer']) {
      const r = st.json.rows.find((x: any) => x.row === row);
      assert.equal(r.state, 'wired', row);
      assert.deepEqual(r.scopes, [scope]);
    }
    const v = baton(['verify', 'copilot', '--json'], { env: w.env, cwd: w.project });
    assert.equal(v.code, 0, v.stdout);
    assert.equal(v.json.entries.length, 5);
    for (const r of v.json.entries) assert.equal(r.ok, true, `${r.event}: ${r.problems.join('; ')}`);
  });
}

test('copilot: install then uninstall leaves HOME and the repository as they were; a foreign hooks file beside baton.json is never touched', () => {
  const w = world();
  const foreign = join(w.home, '.copilot/hooks/mine.json');
  fs.mkdirSync(join(w.home, '.copilot/hooks'), { recursive: true });
  fs.writeFileSync(foreign, '{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "notify-send done"}]}}\n');
  const home0 = treeHash(w.home);
  const proj0 = treeHash(w.project);
  ok(w, ['install', 'copilot']);
  ok(w, ['install', 'copilot', '--scope', 'project']);
  assert.ok(fs.existsSync(join(w.project, '.baton/hooks/copilot')));
  const second = ok(w, ['install', 'copilot', '--json']);
  assert.equal(second.json.changed, false, 'a second install changes nothing');
  const u = ok(w, ['uninstall', 'copilot', '--json']);
  assert.deepEqual(
    u.json.results.map((r: any) => [r.scope, r.removed, r.file_removed]),
    [
      ['user', 5, true],
      ['project', 5, true],
    ],
  );
  assert.equal(treeHash(w.home), home0);
  assert.equal(treeHash(w.project), proj0);
  assert.deepEqual(filesUnder(w.project), []);
});

test('copilot: an earlier baton entry that differs is refused (HK101) and nothing changes; a baton.json that is not a hooks file is refused (HK102)', () => {
  const w = world();
  const file = join(w.home, '.copilot/hooks/baton.json');
  ok(w, ['install', 'copilot', '--aspects', 'session']);
  const before = treeHash(w.home);
  const r = baton(['install', 'copilot'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /HK101/);
  assert.equal(treeHash(w.home), before);
  ok(w, ['install', 'copilot', '--force']);
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).hooks), ['sessionStart', 'sessionEnd', 'userPromptSubmitted', 'preCompact', 'agentStop']);
  fs.writeFileSync(file, '[1, 2]\n');
  const bad = treeHash(w.home);
  const r2 = baton(['install', 'copilot'], { env: w.env, cwd: w.project });
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /HK102/);
  assert.equal(treeHash(w.home), bad);
});

test('copilot hook: a payload without an event (no BATON_HOOK_EVENT) is refused with HK001 and writes nothing', () => {
  const w = world();
  const payload = JSON.stringify(observed()[0].payload);
  const r = baton(['hook', 'copilot'], { env: w.env, cwd: w.project, input: payload });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /HK001 payload lacks hook_event_name/);
  assert.equal(fs.existsSync(join(w.store, 'sessions')), false);
});
