// GitHub Copilot CLI 1.0.102, the real program, offline (BYOK: COPILOT_OFFLINE and the
// stand-in's Chat Completions), with baton installed into a temporary HOME by `baton install
// copilot` as a user would (~/.copilot/hooks/baton.json). One story in order.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, assertAgentRan, COPILOT_VERSION, copilot, newUser, removeUsers, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { newestPointerBlock, pointerBlocks, receiptIn } from './pointer-agent.ts';
import { type AgentPlan, diligentAgent, events, mainSince, ofType, pointerState } from './scenario.ts';

const installed = agentsInstalled().copilot;
const skip = installed ? false : `GitHub Copilot CLI ${COPILOT_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('copilot', run, what);

describe(`GitHub Copilot CLI ${COPILOT_VERSION} with baton installed (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let id = '';
  const PTR1 = 'Goal: prove copilot wiring\nNext: resume';

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install copilot writes ~/.copilot/hooks/baton.json, and baton verify passes', () => {
    const inst = userBaton(['install', 'copilot'], user);
    assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
    const owned = JSON.parse(fs.readFileSync(join(user.home, '.copilot', 'hooks', 'baton.json'), 'utf8'));
    assert.deepEqual(Object.keys(owned.hooks), ['sessionStart', 'userPromptSubmitted', 'preCompact', 'sessionEnd', 'agentStop']);
    const v = userBaton(['verify', 'copilot'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('a first run hands the model the bootstrap block (top-level additionalContext), and the agent publishes through PUBLISHER (bash) by CAS', async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await copilot(['-p', 'Start the copilot task'], user, server);
    assertRan(run, 'first run');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 2, `expected a prompt request and a tool-result request, got ${main.length}`);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP'));
    const shown = newestPointerBlock(main[0].text)!;
    id = shown.fields.SESSION_ID;
    const receipt = receiptIn(main.at(-1)!.lastUserText);
    assert.equal(receipt?.ok, true, `receipt: ${main.at(-1)!.lastUserText}`);
    assert.equal(pointerState(user, id).pointer_text, PTR1);
  });

  test('the run opened one episode (startup) and its sessionEnd complete closed it as closed', () => {
    const evs = events(user, id);
    const opened = ofType(evs, 'episode.opened');
    assert.deepEqual(
      opened.map((e) => [e.payload.provider, e.payload.source]),
      [['copilot', 'startup']],
    );
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
      [['complete', 'closed']],
    );
  });

  test('copilot --continue brings the published pointer back and opens a second episode (resume)', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await copilot(['--continue', '-p', 'Where was I?'], user, server);
    assertRan(run, 'resume');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 1);
    assert.ok(main[0].text.includes('Goal: prove copilot wiring'), 'the pointer text reaches the resumed request');
    const evs = events(user, id);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => e.payload.source),
      ['startup', 'resume'],
    );
    assert.equal(ofType(evs, 'episode.closed').length, 2);
  });
});
