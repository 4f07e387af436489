// Factory Droid (`@factory/cli` 0.225.1 running `@factory/cli-linux-x64` 0.225.2), the real
// program, offline: only `droid exec` runs without a Factory login, with a BYOK model from
// `customModels` (the stand-in's Chat Completions). baton is installed into a temporary HOME
// by `baton install droid` as a user would. What exec mode cannot do offline is not faked
// here: it sends no UserPromptSubmit, `droid exec -s ID` (resume) needs Factory's cloud, and
// the interactive mode needs a login (docs/e2e.md). One story in order.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, assertAgentRan, DROID_VERSION, droid, newUser, prepareDroid, removeUsers, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { newestPointerBlock, pointerBlocks, } from './pointer-agent.ts';
import { type AgentPlan, assertFirstPublish, contextFiles, diligentAgent, events, mainSince, ofType, } from './scenario.ts';

const installed = agentsInstalled().droid;
const skip = installed ? false : `Factory Droid ${DROID_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('droid', run, what);

describe(`Factory Droid ${DROID_VERSION} with baton installed (offline, droid exec)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let id = '';
  const PTR1 = 'Goal: prove droid wiring\nNext: a second exec';

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
    prepareDroid(user, server);
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install droid wires every event into ~/.factory/settings.json, keeps customModels, and baton verify passes', () => {
    const inst = userBaton(['install', 'droid'], user);
    assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
    const settings = JSON.parse(fs.readFileSync(join(user.home, '.factory', 'settings.json'), 'utf8'));
    assert.equal(settings.customModels?.[0]?.model, 'stand-in');
    for (const ev of ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd']) {
      const mine = (settings.hooks?.[ev] ?? []).flatMap((g: any) => g.hooks ?? []).find((h: any) => /hook droid/.test(String(h.command)));
      assert.ok(mine, `${ev} has no baton entry`);
      assert.equal(mine.timeout, 10);
    }
    const v = userBaton(['verify', 'droid'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('droid exec hands the model the bootstrap block (SessionStart), and the agent publishes through PUBLISHER (Execute) by CAS', async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await droid(['Start the droid task'], user, server);
    assertRan(run, 'first exec');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 2, `expected a prompt request and a tool-result request, got ${main.length}`);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP'), 'the bootstrap block reaches the first request');
    id = assertFirstPublish(user, main, PTR1);
  });

  test('the exec opened one episode (startup) and its SessionEnd (reason other) closed it as interrupted; exec sent no UserPromptSubmit, so no prompt was archived', () => {
    const evs = events(user, id);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => [e.payload.provider, e.payload.source]),
      [['droid', 'startup']],
    );
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome, e.payload.prompts]),
      [['other', 'interrupted', 0]],
    );
    assert.equal(ofType(evs, 'prompt.submitted').length, 0);
    assert.equal(contextFiles(user, id).length, 1);
  });

  test('a second droid exec in the same baton session (BATON_SESSION: droid exec -s needs the cloud) brings the published pointer back at start', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await droid(['Where was I?'], user, server, { env: { BATON_SESSION: id } });
    assertRan(run, 'second exec');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 1);
    assert.ok(main[0].text.includes('Goal: prove droid wiring'), 'the pointer text reaches the second exec');
    assert.equal(newestPointerBlock(main[0].text)?.fields.STATUS, 'CLEAN');
    const evs = events(user, id);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => e.payload.source),
      ['startup', 'startup'],
    );
    assert.equal(new Set(ofType(evs, 'episode.opened').map((e) => e.payload.provider_session_id)).size, 2, 'each exec is its own Droid session');
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => e.payload.outcome),
      ['interrupted', 'interrupted'],
    );
  });
});
