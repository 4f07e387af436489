// `baton continue` with the real programs, offline (the stand-in model server): a session begun
// in Claude Code goes on in Codex CLI and then in Gemini CLI, each started by `baton continue
// --in` — its model is handed the pointer and, after it, the handoff block with the earlier
// agent's conclusion cited by seq; it publishes by CAS into the same baton session; its items
// join the transcript — and `baton continue` without --in goes back through the last agent's
// own resume (`gemini --resume ID`).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from '../helpers.ts';
import { AGENTS, type AgentRun, agentsInstalled, assertAgentRan, claude, newUser, prepareCodex, prepareGemini, removeUsers, runAgent, type User, userBaton } from './agents.ts';
import { ModelServer, type RecordedRequest, type Reply } from './model-server.ts';
import { newestPointerBlock, pointerBlocks } from './pointer-agent.ts';
import { type AgentPlan, diligentAgent, events, mainSince, ofType, pointerState, sessionDir } from './scenario.ts';

const have = agentsInstalled();
const skip = have.claude && have.codex && have.gemini ? false : 'needs Claude Code, Codex CLI and Gemini CLI in .e2e/agents (run npm run test:e2e)';

const CONCLUDED: Record<string, string> = {
  claude: 'Concluded by claude: the blue widget ships first.',
  codex: 'Concluded by codex: the red widget follows the blue one.',
  gemini: 'Concluded by gemini: both widgets are done.',
};

/** The handoff block in a request's text, as lines. */
function handoffIn(text: string): string[] | null {
  const start = text.lastIndexOf('HANDOFF_BEGIN');
  const end = text.indexOf('HANDOFF_END', start);
  return start < 0 || end < 0 ? null : text.slice(start, end + 'HANDOFF_END'.length).split('\n');
}

describe('baton continue across Claude Code, Codex CLI and Gemini CLI (offline)', { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let agent = 'claude';
  let id = '';
  const env = () => ({ PATH: `${join(AGENTS, 'node_modules', '.bin')}:${process.env.PATH}`, OPENAI_API_KEY: 'stand-in-key' });
  const continueRun = (args: string[]): Promise<AgentRun> => runAgent(process.execPath, [BIN, 'continue', ...args], user, server, { env: env() });
  const codexArgs = (prompt: string) => [
    'exec',
    '--skip-git-repo-check',
    '--dangerously-bypass-hook-trust',
    '--sandbox',
    'workspace-write',
    '-c',
    `sandbox_workspace_write.writable_roots=[${JSON.stringify(user.batonHome)}]`,
    prompt,
  ];

  before(async () => {
    server = await new ModelServer().start();
    const diligent = diligentAgent(() => plan);
    // The diligent agent, whose answer after its publish is the conclusion the next agent is handed.
    server.script = (r: RecordedRequest): Reply => {
      const reply = diligent(r) as Reply;
      return r.lastIsToolResult && 'text' in reply ? { text: `${CONCLUDED[agent]} ${reply.text}` } : reply;
    };
    user = newUser();
    prepareGemini(user);
    prepareCodex(user, server);
    for (const p of ['claude', 'codex', 'gemini']) {
      const r = userBaton(['install', p], user);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  const itemsOf = (who: string) => ofType(events(user, id), 'transcript.item').filter((e) => e.payload.agent === who);

  /** The first main request of a continued run: the pointer it was handed, and the handoff after it citing `from`'s conclusion. */
  function assertHandedOver(main: RecordedRequest[], from: string, pointer: string): void {
    const text = main[0].text;
    const block = newestPointerBlock(text);
    assert.equal(block?.fields.SESSION_ID, id);
    assert.equal(block?.pointerText, pointer);
    const lines = handoffIn(text);
    assert.ok(lines, `the request holds a handoff block:\n${text.slice(-3000)}`);
    // In the start context, right after the pointer block (a later prompt's context may follow it).
    const h = text.lastIndexOf('HANDOFF_BEGIN');
    const p = text.lastIndexOf('TASK_POINTER_V2\n', h);
    assert.ok(p >= 0 && text.indexOf('POINTER_TEXT_END', p) < h, 'the handoff comes after the pointer block');
    assert.ok(lines.includes(`FROM_AGENT=${from}`), lines.join('\n'));
    const cited = lines.find((l) => l.startsWith('CONCLUSION ') && l.includes(CONCLUDED[from]));
    assert.ok(cited, lines.join('\n'));
    const seq = Number(/seq=(\d+)/.exec(cited)![1]);
    const item = events(user, id).find((e) => e.seq === seq);
    assert.equal(item.type, 'transcript.item');
    assert.equal(item.payload.agent, from);
    assert.ok(item.payload.text.includes(CONCLUDED[from]));
  }

  test('begun in Claude Code: the agent publishes, its items (with its conclusion) are in the transcript', async () => {
    agent = 'claude';
    plan = { publish: 'Goal: ship the widgets\nNext: the blue one' };
    const run = await claude(['-p', 'Start the widget task', '--allowedTools', 'Bash', '--output-format', 'json'], user, server);
    assertAgentRan('claude', run, 'claude');
    id = JSON.parse(run.stdout).session_id;
    assert.equal(pointerState(user, id).status, 'CLEAN');
    assert.ok(
      itemsOf('claude').some((e) => e.payload.role === 'assistant' && e.payload.text.includes(CONCLUDED.claude)),
      'the conclusion is a transcript item',
    );
  });

  test('continue --in codex: pointer + handoff from claude reach the model; codex publishes by CAS into the same session; its items join', async () => {
    agent = 'codex';
    plan = { publish: 'Goal: ship the widgets\nNext: the red one' };
    const from = server.requests.length;
    const run = await continueRun([id, '--in', 'codex', '--', ...codexArgs('Carry on with the widget task')]);
    assertAgentRan('codex', run, 'continue --in codex');
    const main = mainSince(server.requests, from);
    assertHandedOver(main, 'claude', 'Goal: ship the widgets\nNext: the blue one');
    assert.equal(pointerState(user, id).pointer_text, 'Goal: ship the widgets\nNext: the red one');
    assert.ok(
      itemsOf('codex').some((e) => e.payload.text.includes(CONCLUDED.codex)),
      "codex's items are in the baton session",
    );
    const opened = ofType(events(user, id), 'episode.opened').map((e) => e.payload.provider);
    assert.deepEqual(opened, ['claude', 'codex']);
    const locks = ofType(events(user, id), 'lock.acquired').map((e) => e.payload.holder.surface);
    assert.deepEqual(locks, ['hook:codex']);
    assert.equal(ofType(events(user, id), 'lock.released').length, 1, 'released when codex ended');
  });

  test('continue --in gemini: the handoff now comes from codex; gemini publishes into the same session', async () => {
    agent = 'gemini';
    plan = { publish: 'Goal: ship the widgets\nNext: review' };
    const from = server.requests.length;
    const run = await continueRun([id, '--in', 'gemini', '--', '-m', 'gemini-2.5-flash', '-p', 'Finish the widget task', '--allowed-tools', 'run_shell_command']);
    assertAgentRan('gemini', run, 'continue --in gemini');
    const main = mainSince(server.requests, from);
    assertHandedOver(main, 'codex', 'Goal: ship the widgets\nNext: the red one');
    assert.equal(pointerState(user, id).pointer_text, 'Goal: ship the widgets\nNext: review');
    assert.ok(itemsOf('gemini').some((e) => e.payload.text.includes(CONCLUDED.gemini)));
    // The block was frozen with gemini's start context, and shown once.
    const claims = ofType(events(user, id), 'episode.opened').filter((e) => e.payload.provider === 'gemini');
    assert.equal(claims.length, 1);
    const frozen = fs.readFileSync(join(sessionDir(user, id), claims[0].payload.context_file), 'utf8');
    assert.ok(frozen.includes('HANDOFF_BEGIN') && frozen.includes('FROM_AGENT=codex'));
  });

  test('continue without --in: back through the last agent’s own resume (gemini --resume ID), no handoff', async () => {
    agent = 'gemini';
    plan = {};
    const geminiSession = ofType(events(user, id), 'episode.opened').at(-1).payload.provider_session_id;
    const printed = userBaton(['--json', 'continue', id, '--print', '--', '-m', 'gemini-2.5-flash', '-p', 'One more look'], user, { env: env() });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.json.agent, 'gemini');
    assert.equal(printed.json.mode, 'resume');
    assert.deepEqual(printed.json.argv.slice(0, 2), ['--resume', geminiSession]);
    assert.equal(printed.json.block, null);
    const from = server.requests.length;
    const run = await continueRun([id, '--', '-m', 'gemini-2.5-flash', '-p', 'One more look']);
    assertAgentRan('gemini', run, 'continue (resume)');
    const main = mainSince(server.requests, from);
    assert.ok(main[0].text.includes(CONCLUDED.gemini), `the resumed conversation holds gemini's earlier answer:\n${main[0].text.slice(-2500)}`);
    assert.equal(fs.readdirSync(join(sessionDir(user, id), 'handoffs')).length, 2, 'a resume claims no handoff');
    assert.equal(pointerBlocks(main[0].text).length > 0, true);
    const opened = ofType(events(user, id), 'episode.opened').filter((e) => e.payload.provider === 'gemini');
    assert.ok(opened.every((e) => e.payload.provider_session_id === geminiSession), 'the same gemini session');
  });
});
