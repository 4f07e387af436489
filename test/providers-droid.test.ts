// Factory Droid through the settings harness (Claude Code's rules): the settings `baton install
// droid` wrote, the payloads `droid exec` 0.225.2 sent (test/fixtures/providers/droid/).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type AgentWorld, BIN, FIXTURES, agentWorld, baton, readJsonl } from './helpers.ts';
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

const settingsFiles = (w: AgentWorld) => [join(w.home, '.factory/settings.json'), join(w.project, '.factory/settings.json'), join(w.project, '.factory/settings.local.json')];
const events = (w: AgentWorld, sid: string): any[] => readJsonl(join(w.store, 'sessions', sid, 'events.jsonl'));

function ok(w: AgentWorld, args: string[]) {
  const r = baton(args, { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
}

for (const scope of ['user', 'project', 'local'] as const) {
  test(`droid (${scope} scope): two observed exec runs each open an episode with the pointer injected, and SessionEnd other closes it as interrupted`, () => {
    const w = world(scope === 'user' ? { BATON_BIN: undefined } : { BATON_BIN: BIN });
    ok(w, ['install', 'droid', '--scope', scope]);
    const lines = fs
      .readFileSync(join(FIXTURES, 'droid', 'observed-0.225.2-exec.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => ({ ...JSON.parse(l), cwd: w.project }));
    const sids = new Set<string>();
    for (const p of lines) {
      sids.add(p.session_id);
      const r = runProviderEvent({ provider: 'droid', settingsFiles: settingsFiles(w), payload: p, projectDir: w.project, env: w.env });
      assert.deepEqual(r.errors, [], p.hook_event_name);
      assert.equal(r.runs.length, 1, p.hook_event_name);
      if (p.hook_event_name === 'SessionStart') assert.match(r.contexts[0] ?? '', /^TASK_POINTER_V2/);
    }
    assert.equal(sids.size, 2);
    for (const sid of sids) {
      const ev = events(w, sid);
      assert.equal(ev.filter((e) => e.type === 'episode.opened' && e.payload.provider === 'droid').length, 1);
      const closed = ev.filter((e) => e.type === 'episode.closed');
      assert.deepEqual(
        closed.map((e) => [e.payload.reason, e.payload.outcome, e.payload.prompts]),
        [['other', 'interrupted', 0]],
        'droid exec sends no UserPromptSubmit: no prompt counted',
      );
    }
    const v = baton(['verify', 'droid', '--json'], { env: w.env, cwd: w.project });
    assert.equal(v.code, 0, v.stdout);
    for (const r of v.json.entries) assert.equal(r.ok, true, `${r.event}: ${r.problems.join('; ')}`);
  });
}

test('droid: install then uninstall gives back ~/.factory/settings.json (customModels and all) byte for byte', () => {
  const w = world();
  const file = join(w.home, '.factory', 'settings.json');
  fs.mkdirSync(join(w.home, '.factory'));
  const original = '{\n    "customModels": [\n        {"model": "m", "displayName": "M", "baseUrl": "http://127.0.0.1:1/v1", "provider": "generic-chat-completion-api"}\n    ]\n}';
  fs.writeFileSync(file, original);
  ok(w, ['install', 'droid']);
  const wired = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(Object.keys(wired.hooks), ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd', 'Stop']);
  assert.equal(wired.hooks.SessionStart[0].hooks[0].timeout, 10);
  ok(w, ['uninstall', 'droid']);
  assert.equal(fs.readFileSync(file, 'utf8'), original);
  assert.equal(fs.existsSync(`${file}.baton-backup`), false);
});
