// pi 0.73.1 (`@mariozechner/pi-coding-agent`), the real program, driven offline by the stand-in
// model server (Chat Completions, a provider in ~/.pi/agent/models.json), with baton installed
// into a temporary HOME by `baton install pi` as a user would: the extension baton owns,
// ~/.pi/agent/extensions/baton.ts, runs inside pi and pipes its events into `baton hook pi`.
// One story in order: each test continues the session the previous ones left.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, assertAgentRan, newUser, PI_VERSION, pi, preparePi, removeUsers, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { newestPointerBlock, pointerBlocks, } from './pointer-agent.ts';
import { type AgentPlan, assertFirstPublish, contextFiles, diligentAgent, events, mainSince, ofType, } from './scenario.ts';

const installed = agentsInstalled().pi;
const skip = installed ? false : `pi ${PI_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

function assertRan(run: AgentRun, what: string): void {
  assertAgentRan('pi', run, what);
  assert.doesNotMatch(run.stderr, /baton: pi/, `${what}: the extension reported a problem`);
}

describe(`pi ${PI_VERSION} with baton installed (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: AgentPlan = {};
  let id = '';
  const PTR1 = 'Goal: prove pi wiring\nNext: resume';
  const extension = () => join(user.home, '.pi', 'agent', 'extensions', 'baton.ts');

  before(async () => {
    server = await new ModelServer().start();
    server.script = diligentAgent(() => plan);
    user = newUser();
    preparePi(user, server);
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install pi writes the extension ~/.pi/agent/extensions/baton.ts with an entry per event, and baton verify passes', () => {
    const inst = userBaton(['install', 'pi'], user);
    assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
    const line = /^const BATON_HOOKS: Record<string, string> = (\{.*\});$/m.exec(fs.readFileSync(extension(), 'utf8'));
    assert.ok(line, 'the extension carries its entries line');
    const hooks = JSON.parse(line[1]);
    assert.deepEqual(Object.keys(hooks), ['session_start', 'input', 'session_before_compact', 'session_shutdown', 'agent_end']);
    // The store is not the default one: each entry names it (docs/hooks.md).
    for (const command of Object.values(hooks)) assert.ok(String(command).endsWith(`baton.cjs hook pi --home ${user.batonHome}`), String(command));
    const v = userBaton(['verify', 'pi'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
    const st = userBaton(['status', '--json'], user);
    const state = (row: string) => (st.json?.rows ?? []).find((r: any) => r.row === row)?.state;
    assert.deepEqual(
      ['pi', 'pi:session', 'pi:pointer'].map(state),
      ['wired', 'wired', 'wired'],
    );
  });

  test('a first run hands the model the bootstrap block (a message from before_agent_start), and the agent publishes through PUBLISHER (bash) by CAS', async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await pi(['-p', 'Start the pi task'], user, server);
    assertRan(run, 'first run');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 2, `expected a prompt request and a tool-result request, got ${main.length}`);
    assert.ok(pointerBlocks(main[0].text).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP'), 'the bootstrap block reaches the first request');
    id = assertFirstPublish(user, main, PTR1);
    assert.match(run.stdout, /RECEIPT \{"ok":true/);
  });

  test('the run opened one episode (provider pi, source startup) with its frozen start context, archived the prompt, and session_shutdown quit closed it as closed', () => {
    const evs = events(user, id);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => [e.payload.provider, e.payload.source, e.payload.provider_session_id]),
      [['pi', 'startup', id]],
    );
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
      [['quit', 'closed']],
    );
    assert.deepEqual(
      ofType(evs, 'prompt.submitted').map((e) => e.payload.text),
      ['Start the pi task'],
    );
    const ctx = contextFiles(user, id);
    assert.equal(ctx.length, 1);
    assert.match(fs.readFileSync(ctx[0], 'utf8'), /TASK_POINTER_V2_BOOTSTRAP/);
  });

  test('pi -c (reported by pi as startup) opens a second episode as resume, and the published pointer reaches the model again', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await pi(['-c', '-p', 'Where was I?'], user, server);
    assertRan(run, 'resume');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 1);
    // The publish went out base64-encoded: the text in plain is the resumed start's block.
    assert.ok(main[0].text.includes('Goal: prove pi wiring'), 'the pointer text reaches the resumed request');
    const block = newestPointerBlock(main[0].text)!;
    assert.equal(block.fields.SESSION_ID, id);
    assert.match(run.stdout, /^SAW TASK_POINTER_V2 /m);
    const evs = events(user, id);
    assert.deepEqual(
      ofType(evs, 'episode.opened').map((e) => e.payload.source),
      ['startup', 'resume'],
    );
    assert.deepEqual(
      ofType(evs, 'episode.closed').map((e) => e.payload.outcome),
      ['closed', 'closed'],
    );
    assert.deepEqual(
      ofType(evs, 'prompt.submitted').map((e) => e.payload.text),
      ['Start the pi task', 'Where was I?'],
    );
  });

  test('baton uninstall pi removes the extension (and the folder it made), and leaves models.json', () => {
    const un = userBaton(['uninstall', 'pi'], user);
    assert.equal(un.code, 0, `uninstall failed: ${un.stderr}${un.stdout}`);
    assert.equal(fs.existsSync(extension()), false);
    assert.equal(fs.existsSync(join(user.home, '.pi', 'agent', 'extensions')), false);
    assert.ok(fs.existsSync(join(user.home, '.pi', 'agent', 'models.json')));
  });
});
