// The opencode and Kilo story (they share the plugin API and baton's plugin): the real
// program installed by scripts/run-e2e.mjs, driven offline by the stand-in model server (Chat
// Completions), with baton installed into a temporary HOME by `baton install <agent>` as a user
// would. One story in order: each test continues the session the previous ones left.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AgentRun, agentsInstalled, assertAgentRan, KILO_VERSION, newUser, OPENCODE_VERSION, opencodeLike, prepareOpencodeLike, removeUsers, type User, userBaton } from './agents.ts';
import { ModelServer } from './model-server.ts';
import { pointerBlocks, } from './pointer-agent.ts';
import { type AgentPlan, assertFirstPublish, contextFiles, diligentAgent, events, mainSince, ofType, } from './scenario.ts';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls `check` (errors count as not yet) until it holds; fails after `ms`. */
async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {}
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${check}`);
    await sleep(250);
  }
}

export function opencodeStory(agent: 'opencode' | 'kilo', timeoutMs: number): void {
  const title = agent === 'opencode' ? `opencode ${OPENCODE_VERSION}` : `Kilo ${KILO_VERSION}`;
  const skip = agentsInstalled()[agent] ? false : `${title} is not installed in .e2e/agents (run npm run test:e2e)`;
  const run = (args: string[], user: User, server: ModelServer) => opencodeLike(agent, args, user, server, { timeoutMs });

  const assertRan = (r: AgentRun, what: string): void => assertAgentRan(agent, r, what);

  describe(`${title} with baton installed (offline)`, { skip }, () => {
    let server: ModelServer;
    let user: User;
    let plan: AgentPlan = {};
    let id = '';
    const PTR1 = `Goal: prove ${agent} wiring\nNext: resume`;
    const plugin = () => join(user.home, '.config', agent, 'plugin', 'baton.js');

    before(async () => {
      server = await new ModelServer().start();
      server.script = diligentAgent(() => plan);
      user = newUser();
      prepareOpencodeLike(user, server, agent);
    });
    after(async () => {
      await server?.close();
      removeUsers();
    });

    test(`baton install ${agent} writes its plugin file, status shows every aspect wired, and baton verify passes`, () => {
      const inst = userBaton(['install', agent], user);
      assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
      assert.match(fs.readFileSync(plugin(), 'utf8'), /^const BATON = \{"provider":"[a-z]+","hooks":\{"session\.start":/m);
      const st = userBaton(['status', '--json'], user);
      for (const row of [agent, `${agent}:session`, `${agent}:pointer`]) assert.equal(st.json.rows.find((r: any) => r.row === row)?.state, 'wired', row);
      const v = userBaton(['verify', agent], user);
      assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
    });

    test('a first run hands the model the bootstrap block in its system prompt, and the agent publishes through PUBLISHER (bash) by CAS', async () => {
      plan = { publish: PTR1 };
      const from = server.requests.length;
      const r = await run(['run', 'Start the task'], user, server);
      assertRan(r, 'first run');
      const main = mainSince(server.requests, from);
      assert.ok(main.length >= 2, `expected a prompt request and a tool-result request, got ${main.length}`);
      const system = main[0].body.messages.filter((m: any) => m.role === 'system').map((m: any) => String(m.content));
      assert.ok(
        system.some((s: string) => pointerBlocks(s).some((b) => b.marker === 'TASK_POINTER_V2_BOOTSTRAP')),
        'the start context is in a system message',
      );
      id = assertFirstPublish(user, main, PTR1, /^ses_[A-Za-z0-9]+$/);
      // The prepared config folder was enough: the agent ran no npm install into it.
      assert.equal(fs.existsSync(join(user.home, '.npm')), false, 'no npm run in the temp HOME');
    });

    test('the run opened one episode (startup) with its frozen start context, archived the prompt, and session.idle closed the episode as closed', async () => {
      // The idle hook runs detached from the agent (plugin-file.ts): it may still be writing as the agent exits.
      await until(() => ofType(events(user, id), 'episode.closed').length === 1, 15_000);
      const evs = events(user, id);
      assert.deepEqual(
        ofType(evs, 'episode.opened').map((e) => [e.payload.provider, e.payload.source]),
        [[agent, 'startup']],
      );
      assert.deepEqual(
        ofType(evs, 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
        [['idle', 'closed']],
      );
      const prompts = ofType(evs, 'prompt.submitted').map((e) => e.payload.text);
      assert.equal(prompts.length, 1);
      assert.match(prompts[0], /Start the task/);
      assert.equal(contextFiles(user, id).length, 1);
    });

    test(`${agent} run --continue brings the published pointer back to the model and opens a second episode (resume), closed at idle`, async () => {
      plan = {};
      const from = server.requests.length;
      const r = await run(['run', '--continue', 'Where was I?'], user, server);
      assertRan(r, 'resume');
      const main = mainSince(server.requests, from);
      assert.ok(main.length >= 1);
      assert.ok(main[0].text.includes(`Goal: prove ${agent} wiring`), 'the pointer text reaches the resumed request');
      assert.match(r.stdout, /SAW TASK_POINTER_V2 STATUS=/);
      // As after the first run: the detached idle hook may finish after the agent's exit.
      await until(() => ofType(events(user, id), 'episode.closed').length === 2, 15_000);
      const evs = events(user, id);
      assert.deepEqual(
        ofType(evs, 'episode.opened').map((e) => e.payload.source),
        ['startup', 'resume'],
      );
      assert.deepEqual(
        ofType(evs, 'episode.closed').map((e) => e.payload.outcome),
        ['closed', 'closed'],
      );
      assert.equal(ofType(evs, 'prompt.submitted').length, 2);
    });

    test(`compaction through \`${agent} serve\` (not reachable from \`run\`): that process opens an episode as compact, and its next message has the block in its system prompt`, async () => {
      plan = {};
      const port = await freePort();
      let signal: (sig: NodeJS.Signals) => void = () => {};
      const served = opencodeLike(agent, ['serve', '--port', String(port), '--hostname', '127.0.0.1'], user, server, { timeoutMs, onStart: (s) => (signal = s) });
      try {
        const api = `http://127.0.0.1:${port}`;
        // The first request while the server bootstraps may never be answered: each try gives up after 5 s.
        await until(async () => (await fetch(`${api}/session`, { signal: AbortSignal.timeout(5000) })).ok, timeoutMs).catch(async (e) => {
          signal('SIGKILL');
          const r = await served;
          throw new Error(`${e.message}\nserve exited ${r.code ?? r.signal}\n${r.stdout}\n${r.stderr.slice(-3000)}`);
        });
        const model = { providerID: 'standin', modelID: 'stand-in' };
        const sum = await fetch(`${api}/session/${id}/summarize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(model) });
        assert.equal(sum.status, 200, await sum.text());
        await until(async () => ofType(events(user, id), 'episode.closed').length === 3, 30_000);
        const from = server.requests.length;
        const msg = await fetch(`${api}/session/${id}/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, parts: [{ type: 'text', text: 'After the summary' }] }) });
        assert.equal(msg.status, 200, await msg.text());
        const main = mainSince(server.requests, from);
        assert.ok(main.length >= 1);
        const system = main[0].body.messages.filter((m: any) => m.role === 'system').map((m: any) => String(m.content));
        assert.ok(
          system.some((s: string) => s.includes(`Goal: prove ${agent} wiring`)),
          'the pointer is in the system prompt after compaction',
        );
      } finally {
        signal('SIGTERM');
        await served;
      }
      const evs = events(user, id);
      assert.deepEqual(
        ofType(evs, 'episode.opened').map((e) => e.payload.source),
        ['startup', 'resume', 'compact', 'resume'],
      );
    });

    test(`baton uninstall ${agent} removes the plugin file and the folders it leaves empty`, () => {
      const u = userBaton(['uninstall', agent], user);
      assert.equal(u.code, 0, u.stderr);
      assert.equal(fs.existsSync(plugin()), false);
      assert.equal(fs.existsSync(join(user.home, '.config', agent, 'plugin')), false);
      assert.ok(fs.existsSync(join(user.home, '.config', agent, `${agent}.json`)), "the agent's own config stays");
    });
  });
}
