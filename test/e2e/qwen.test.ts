// Qwen Code 0.24.4, the real program, driven offline by the stand-in model server (Chat
// Completions), with baton installed into a temporary HOME by `baton install qwen` as a user
// would. One story in order: each test continues the session the previous ones left.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, assertAgentRan, newUser, prepareQwen, QWEN_VERSION, qwen, removeUsers, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { pointerBlocks, } from './pointer-agent.ts';
import { type AgentPlan, assertFirstPublish, contextFiles, diligentAgent, events, mainSince, ofType, } from './scenario.ts';

const installed = agentsInstalled().qwen;
const skip = installed ? false : `Qwen Code ${QWEN_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('qwen', run, what);

describe(`Qwen Code ${QWEN_VERSION} with baton installed (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let id = '';
  const PTR1 = 'Goal: prove qwen wiring\nNext: resume';

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
    prepareQwen(user);
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install qwen wires every event into ~/.qwen/settings.json (timeouts in ms), keeps the auth settings, and baton verify passes', () => {
    const inst = userBaton(['install', 'qwen'], user);
    assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
    const settings = JSON.parse(fs.readFileSync(join(user.home, '.qwen', 'settings.json'), 'utf8'));
    assert.equal(settings.security?.auth?.selectedType, 'openai');
    for (const ev of ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd']) {
      const mine = (settings.hooks?.[ev] ?? []).flatMap((g: any) => g.hooks ?? []).find((h: any) => /hook qwen/.test(String(h.command)));
      assert.ok(mine, `${ev} has no baton entry`);
      assert.equal(mine.timeout, 10000);
    }
    const v = userBaton(['verify', 'qwen'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('a first run hands the model the bootstrap block, and the agent publishes its pointer through PUBLISHER (run_shell_command) by CAS', async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await qwen(['-p', 'Start the qwen task'], user, server);
    assertRan(run, 'first run');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 2, `expected a prompt request and a tool-result request, got ${main.length}`);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP'));
    id = assertFirstPublish(user, main, PTR1);
  });

  test('the run opened one episode (provider qwen, source startup) with its frozen start context, and -p left it open (no SessionEnd)', () => {
    const evs = events(user, id);
    const opened = ofType(evs, 'episode.opened');
    assert.equal(opened.length, 1);
    assert.equal(opened[0].payload.provider, 'qwen');
    assert.equal(opened[0].payload.source, 'startup');
    assert.equal(ofType(evs, 'episode.closed').length, 0);
    assert.deepEqual(
      ofType(evs, 'prompt.submitted').map((e) => e.payload.text),
      ['Start the qwen task'],
    );
    assert.equal(contextFiles(user, id).length, 1);
  });

  test('qwen --continue brings the published pointer back to the model; the resumed start keeps the one open episode', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await qwen(['--continue', '-p', 'Where was I?'], user, server);
    assertRan(run, 'resume');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 1);
    assert.ok(main[0].text.includes('Goal: prove qwen wiring'), 'the pointer text reaches the resumed request');
    const evs = events(user, id);
    assert.equal(ofType(evs, 'episode.opened').length, 1);
    assert.equal(ofType(evs, 'prompt.submitted').length, 2);
  });
});
