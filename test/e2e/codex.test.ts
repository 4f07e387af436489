// Codex CLI 0.171.0, the real program (a native binary in @openai/codex), driven offline by
// the stand-in model server through a custom model provider (Responses API, streamed), with
// baton installed by `baton install codex` as a user would. Codex runs unmanaged hooks only
// once trusted in its /hooks screen; `--dangerously-bypass-hook-trust` stands in for that step.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, assertAgentRan, CODEX_VERSION, codex, newUser, removeUsers, prepareCodex, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { newestPointerBlock, pointerBlocks, receiptIn } from './pointer-agent.ts';
import { type AgentPlan, contextFiles, diligentAgent, events, mainSince, ofType, pointerState } from './scenario.ts';

const installed = agentsInstalled().codex;
const skip = installed ? false : `Codex CLI ${CODEX_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('codex', run, what);

describe(`Codex CLI ${CODEX_VERSION} with baton installed (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let id = '';
  const PTR1 = 'Goal: prove codex wiring\nNext: resume';

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
    prepareCodex(user, server);
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install codex writes ~/.codex/hooks.json and baton verify passes against it', () => {
    const inst = userBaton(['install', 'codex'], user);
    assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
    const hooks = JSON.parse(fs.readFileSync(join(user.home, '.codex', 'hooks.json'), 'utf8'));
    for (const ev of ['SessionStart', 'UserPromptSubmit', 'PreCompact']) {
      const cmds = (hooks.hooks?.[ev] ?? []).flatMap((g: any) => (g.hooks ?? []).map((h: any) => String(h.command)));
      assert.ok(
        cmds.some((c: string) => /hook codex/.test(c)),
        `${ev} has no baton entry`,
      );
    }
    const v = userBaton(['verify', 'codex'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('codex exec: the bootstrap block reaches the model as a developer message and the agent publishes by CAS through exec_command', async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await codex(['Start the codex task'], user, server);
    assertRan(run, 'first run');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 2, `got ${main.length} main requests`);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP'));
    const developer = (main[0].body.input as any[]).filter((i) => i.role === 'developer').map((i) => JSON.stringify(i.content));
    assert.ok(
      developer.some((c) => c.includes('TASK_POINTER_V2_BOOTSTRAP')),
      'the hook context is a developer message',
    );
    const shown = newestPointerBlock(main[0].text)!;
    id = shown.fields.SESSION_ID;
    const receipt = receiptIn(main.at(-1)!.lastUserText);
    assert.equal(receipt?.ok, true, `receipt: ${main.at(-1)!.lastUserText}`);
    assert.equal(receipt.revision, Number(shown.fields.REVISION) + 1);
    assert.equal(pointerState(user, id).pointer_text, PTR1);

    const evs = events(user, id);
    assert.equal(ofType(evs, 'episode.opened').length, 1);
    assert.deepEqual(
      ofType(evs, 'prompt.submitted').map((e) => e.payload.text),
      ['Start the codex task'],
    );
    assert.equal(contextFiles(user, id).length, 1);
  });

  test('codex exec resume ID: the model is handed the published pointer again', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await codex(['resume', id, 'Continue the codex task'], user, server);
    assertRan(run, 'resume');
    const main = mainSince(server.requests, from);
    assert.equal(main.length, 1);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2' && b.fields.STATUS === 'CLEAN' && b.pointerText === PTR1));
    assert.match(run.stdout, /SAW TASK_POINTER_V2 STATUS=DIRTY/);
    // Codex 0.171.0 sends SessionEnd (reason other) at the end of every `codex exec`, and
    // baton wires it: each run is its own episode, closed as interrupted (like claude -p).
    const evs = events(user, id);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => e.payload.source),
      ['startup', 'resume'],
    );
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
      [
        ['other', 'interrupted'],
        ['other', 'interrupted'],
      ],
    );
    assert.deepEqual(
      ofType(evs, 'prompt.submitted').map((e) => e.payload.text),
      ['Start the codex task', 'Continue the codex task'],
    );
  });
});
