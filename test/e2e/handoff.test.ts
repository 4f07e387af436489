// One durable task across agent programs: with BATON_SESSION set, Claude Code and Gemini CLI
// runs become episodes of one named baton session, and the pointer Claude's agent publishes
// is what Gemini's model is handed next. Also: a Claude `--fork-session` run.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, claude, gemini, newUser, removeUsers, prepareGemini, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { newestPointerBlock, pointerBlocks } from './pointer-agent.ts';
import { type AgentPlan, diligentAgent, events, mainSince, ofType, pointerState, sessionDir } from './scenario.ts';

const have = agentsInstalled();
const skip = have.claude && have.gemini ? false : 'needs Claude Code and Gemini CLI in .e2e/agents (run npm run test:e2e)';

function assertRan(run: AgentRun, what: string): void {
  assert.equal(run.timedOut, false, `${what}: killed after the timeout\n${run.stderr}`);
  assert.equal(run.code, 0, `${what}: exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

describe('one task across Claude Code and Gemini CLI (BATON_SESSION)', { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let claudeId = '';
  const TASK = 'handoff-task';
  const env = { BATON_SESSION: TASK };
  const PTR = 'Goal: hand the task over\nNext: gemini continues';

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
    prepareGemini(user);
    for (const p of ['claude', 'gemini']) {
      const r = userBaton(['install', p], user);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test("Claude's agent publishes into the named session, not its own provider session", async () => {
    plan = { publish: PTR };
    const from = server.requests.length;
    const run = await claude(['-p', 'Start the shared task', '--allowedTools', 'Bash', '--output-format', 'json'], user, server, { env });
    assertRan(run, 'claude');
    claudeId = JSON.parse(run.stdout).session_id;
    const shown = newestPointerBlock(mainSince(server.requests, from)[0].text)!;
    assert.equal(shown.fields.SESSION_ID, TASK);
    assert.equal(pointerState(user, TASK).pointer_text, PTR);
    const opened = ofType(events(user, TASK), 'episode.opened');
    assert.equal(opened.length, 1);
    assert.equal(opened[0].payload.provider_session_id, claudeId);
    assert.equal(fs.existsSync(sessionDir(user, claudeId)), false, 'no session was made for the provider session id');
  });

  test("Gemini's model is handed the pointer Claude's agent published, as an episode of the same session", async () => {
    plan = {};
    const from = server.requests.length;
    const run = await gemini(['-p', 'Pick up the shared task'], user, server, { env });
    assertRan(run, 'gemini');
    const main = mainSince(server.requests, from);
    assert.ok(
      pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2' && b.fields.SESSION_ID === TASK && b.pointerText === PTR),
      "gemini's request carries the pointer claude's agent published",
    );
    assert.equal(run.stdout.trim(), 'SAW TASK_POINTER_V2 STATUS=DIRTY');
    const evs = events(user, TASK);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => e.payload.provider),
      ['claude', 'gemini'],
    );
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
      [
        ['other', 'interrupted'],
        ['exit', 'closed'],
      ],
    );
  });

  test('claude --fork-session starts a new provider session (source fork); in the named session its model is handed the same pointer', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await claude(['--resume', claudeId, '--fork-session', '-p', 'Try another way', '--output-format', 'json'], user, server, { env });
    assertRan(run, 'fork');
    const forkId = JSON.parse(run.stdout).session_id;
    assert.notEqual(forkId, claudeId);
    const main = mainSince(server.requests, from);
    assert.equal(newestPointerBlock(main[0].text)?.pointerText, PTR);
    const opened = ofType(events(user, TASK), 'episode.opened');
    assert.equal(opened.at(-1).payload.source, 'fork');
    assert.equal(opened.at(-1).payload.provider_session_id, forkId);
  });
});
