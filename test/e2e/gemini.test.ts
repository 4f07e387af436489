// Gemini CLI 0.61.0, the real program, driven offline by the stand-in model server, with
// baton installed into a temporary HOME by `baton install gemini` as a user would. One
// story in order: each test continues the session the previous ones left.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { treeHash } from '../helpers.ts';
import { type AgentRun, agentsInstalled, assertAgentRan, canMountReadOnly, GEMINI_VERSION, gemini, newUser, removeUsers, prepareGemini, readOnlyWrap, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { newestPointerBlock, pointerBlocks, receiptIn } from './pointer-agent.ts';
import { type AgentPlan, contextFiles, diligentAgent, events, mainSince, ofType, pointerState } from './scenario.ts';

const installed = agentsInstalled().gemini;
const skip = installed ? false : `Gemini CLI ${GEMINI_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

const HOOK_EVENTS = ['SessionStart', 'BeforeAgent', 'PreCompress', 'SessionEnd'];
const SHELL = ['--allowed-tools', 'run_shell_command'];

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('gemini', run, what);

describe(`Gemini CLI ${GEMINI_VERSION} with baton installed (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let id = '';
  const PTR1 = 'Goal: prove gemini wiring\nNext: resume';
  const PTR2 = 'Goal: prove gemini wiring\nNext: read-only store';

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
    prepareGemini(user);
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install gemini wires every event into ~/.gemini/settings.json (timeouts in ms), keeps the auth settings, and baton verify passes', () => {
    const inst = userBaton(['install', 'gemini'], user);
    assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
    const settings = JSON.parse(fs.readFileSync(join(user.home, '.gemini', 'settings.json'), 'utf8'));
    assert.equal(settings.security?.auth?.selectedType, 'gemini-api-key');
    for (const ev of HOOK_EVENTS) {
      const hooks = (settings.hooks?.[ev] ?? []).flatMap((g: any) => g.hooks ?? []);
      const mine = hooks.find((h: any) => /hook gemini/.test(String(h.command)));
      assert.ok(mine, `${ev} has no baton entry: ${JSON.stringify(settings.hooks?.[ev])}`);
      assert.ok(mine.timeout >= 1000, `${ev} timeout ${mine.timeout} is not in milliseconds`);
    }
    const v = userBaton(['verify', 'gemini'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('a first run hands the model the bootstrap block, and the agent publishes its pointer through PUBLISHER (run_shell_command) by CAS', async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await gemini(['-p', 'Start the gemini task', ...SHELL], user, server);
    assertRan(run, 'first run');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 2, `expected a prompt request and a tool-result request, got ${main.length}`);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP'));
    const shown = newestPointerBlock(main[0].text)!;
    id = shown.fields.SESSION_ID;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const receipt = receiptIn(main.at(-1)!.lastUserText);
    assert.equal(receipt?.ok, true, `receipt: ${main.at(-1)!.lastUserText}`);
    assert.equal(receipt.generation, shown.fields.GENERATION);
    assert.equal(receipt.revision, Number(shown.fields.REVISION) + 1);
    assert.match(run.stdout, /^RECEIPT /);
    const state = pointerState(user, id);
    assert.equal(state.status, 'CLEAN');
    assert.equal(state.pointer_text, PTR1);
  });

  test('the run opened one episode and closed it with reason exit (closed), and froze its start context', () => {
    const evs = events(user, id);
    const opened = ofType(evs, 'episode.opened');
    const closed = ofType(evs, 'episode.closed');
    assert.equal(opened.length, 1);
    assert.equal(opened[0].payload.provider, 'gemini');
    assert.equal(opened[0].payload.source, 'startup');
    assert.equal(closed.length, 1);
    assert.equal(closed[0].payload.reason, 'exit');
    assert.equal(closed[0].payload.outcome, 'closed');
    const ctx = contextFiles(user, id);
    assert.equal(ctx.length, 1);
    assert.match(fs.readFileSync(ctx[0], 'utf8'), /TASK_POINTER_V2_BOOTSTRAP/);
  });

  // Gemini CLI 0.61.0 prepends the SessionStart context to BeforeAgent's `prompt` as
  // `<hook_context>...</hook_context>\n\n`; the gemini adapter strips it before archiving.
  test("the prompt archive holds the user's prompt, not the start context Gemini prepends to BeforeAgent's prompt", () => {
    const prompts = ofType(events(user, id), 'prompt.submitted');
    assert.equal(prompts.length, 1);
    assert.doesNotMatch(prompts[0].payload.text, /hook_context|TASK_POINTER_V2/, 'baton archived its own injected context as the prompt');
    assert.equal(prompts[0].payload.text, 'Start the gemini task');
  });

  test('a resumed run (--resume ID) hands the model the published pointer again, and the agent republishes', async () => {
    plan = { publish: PTR2 };
    const from = server.requests.length;
    const run = await gemini(['--resume', id, '-p', 'Continue the gemini task', ...SHELL], user, server);
    assertRan(run, 'resume');
    const main = mainSince(server.requests, from);
    assert.ok(
      pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2' && b.fields.STATUS === 'CLEAN' && b.pointerText === PTR1),
      'the resume start context carries the published pointer',
    );
    assert.equal(newestPointerBlock(main[0].text)!.fields.STATUS, 'DIRTY');
    assert.equal(receiptIn(main.at(-1)!.lastUserText)?.ok, true);
    assert.equal(pointerState(user, id).pointer_text, PTR2);
    const opened = ofType(events(user, id), 'episode.opened');
    assert.deepEqual(
      opened.map((e) => e.payload.source),
      ['startup', 'resume'],
    );
    assert.equal(ofType(events(user, id), 'episode.closed').length, 2);
  });

  const roSkip = canMountReadOnly() ? false : 'needs a private mount namespace (unshare -m) for a read-only store';

  test('with the store read-only and the pointer CLEAN, the DIRTY write fails: Gemini blocks the agent and says why, the model is never asked', { skip: roSkip }, async () => {
    assert.equal(pointerState(user, id).status, 'CLEAN');
    plan = {};
    const beforeHash = treeHash(user.batonHome);
    const from = server.requests.length;
    const run = await gemini(['--resume', id, '-p', 'Prompt that must be blocked'], user, server, { wrap: readOnlyWrap(user.batonHome) });
    assertRan(run, 'read-only store');
    assert.match(run.stderr, /Agent execution blocked: TASK_POINTER_V2:WRITE_FAILED/);
    assert.equal(mainSince(server.requests, from).length, 0);
    assert.equal(treeHash(user.batonHome), beforeHash);
  });

  test('baton verify still passes after real runs and writes nothing', () => {
    const beforeHash = treeHash(user.batonHome);
    const v = userBaton(['verify', 'gemini'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
    assert.equal(treeHash(user.batonHome), beforeHash);
  });
});
