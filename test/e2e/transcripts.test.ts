// The transcript aspect with the nine real agents (docs/transcripts.md, issue 24's tests), each
// installed by `baton install <agent>` as a user would (the default aspects, which hold
// `transcript`), offline against the stand-in model. Per agent: a scripted turn (a prompt, an
// assistant text with a shell call writing notes.txt, the agent's own write tool writing
// plan.md where it has one, an answer printing a fake secret) reaches the store once, item by
// item; a catch-up run by hand (`baton hook <agent>` with the turn-end payload) adds nothing
// and leaves the agent's own files byte- and mtime-identical; the fake secret is in no file
// under BATON_HOME; the agent's own resume adds only its new items. Read-only on everything
// but the temp users it makes (removed at the end).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { readJsonl } from '../helpers.ts';
import {
  type AgentRun,
  agentsInstalled,
  assertAgentRan,
  claude,
  codex,
  copilot,
  droid,
  gemini,
  newUser,
  opencodeLike,
  pi,
  prepareCodex,
  prepareDroid,
  prepareGemini,
  prepareOpencodeLike,
  preparePi,
  prepareQwen,
  qwen,
  removeUsers,
  type User,
  userBaton,
} from './agents.ts';
import { ModelServer, type RecordedRequest, type Reply } from './model-server.ts';

/** The fake secret the model prints, built at run time so no source file holds it whole. */
const SECRET = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;
const COMMAND = "printf 'hello\\n' > notes.txt";
const SAY = 'I will write notes.txt first.';
const PROMPT = 'Write hello into notes.txt, then a plan in plan.md.';
const RESUME_PROMPT = 'Are the notes still there?';
const RESUMED = 'Resumed: notes.txt and plan.md are still there.';
const PLAN = '# Plan\n\n- say hello\n';

type AgentName = 'claude' | 'codex' | 'gemini' | 'qwen' | 'copilot' | 'droid' | 'opencode' | 'kilo' | 'pi';

interface Spec {
  name: AgentName;
  title: string;
  /** The shell tool's name as the agent records it. */
  shell: string;
  /** The agent's own file-write tool: its name and the call's input (none: Codex 0.171.0 offers the model none). */
  write?: { name: string; input: (user: User, req: RecordedRequest) => Record<string, unknown> };
  prepare: (user: User, server: ModelServer) => void;
  /** The first run (a prompt), and the agent's own resume of session `id`. */
  run: (user: User, server: ModelServer, prompt: string) => Promise<AgentRun>;
  resume?: (user: User, server: ModelServer, id: string, prompt: string) => Promise<AgentRun>;
  /** Why the resume cannot run offline. */
  noResume?: string;
  /** The agent's own store folder, relative to HOME. */
  store: string;
  /** The turn-end payload the agent would send (and the environment its installed hook command sets). */
  turnEnd: (user: User, id: string, path: string | undefined) => { payload: Record<string, unknown>; env?: Record<string, string> };
}

const std = (event: string) => (user: User, id: string, path: string | undefined) => ({ payload: { session_id: id, transcript_path: path, cwd: user.project, hook_event_name: event, stop_hook_active: false } });

/** opencode and Kilo: an observer plugin beside baton's keeps the messages the plugin API returns at each session.idle, for the catch-up by hand. */
const OBSERVER = (log: string) => `import { appendFileSync } from "node:fs";
export const ObservePlugin = async ({ client }) => ({
  event: async ({ event }) => {
    if (event.type !== "session.idle") return;
    try {
      const messages = (await client.session.messages({ path: { id: event.properties.sessionID } })).data;
      appendFileSync(${JSON.stringify(log)}, JSON.stringify({ sessionID: event.properties.sessionID, messages }) + "\\n");
    } catch {}
  },
});
`;

function opencodeSpec(name: 'opencode' | 'kilo', title: string, timeoutMs: number): Spec {
  const observed = (user: User) => join(user.home, 'observed-idle.jsonl');
  return {
    name,
    title,
    shell: 'bash',
    write: { name: 'write', input: (user) => ({ filePath: join(user.project, 'plan.md'), content: PLAN }) },
    prepare: (user, server) => {
      prepareOpencodeLike(user, server, name);
      fs.mkdirSync(join(user.home, '.config', name, 'plugin'), { recursive: true });
      fs.writeFileSync(join(user.home, '.config', name, 'plugin', 'observe.js'), OBSERVER(observed(user)));
    },
    run: (user, server, prompt) => opencodeLike(name, ['run', prompt], user, server, { timeoutMs }),
    resume: (user, server, id, prompt) => opencodeLike(name, ['run', '--session', id, prompt], user, server, { timeoutMs }),
    store: join('.local', 'share', name),
    turnEnd: (user, id) => {
      const lines = fs.existsSync(observed(user)) ? readJsonl(observed(user)) : [];
      const last = lines.filter((l) => l.sessionID === id).at(-1);
      assert.ok(Array.isArray(last?.messages), `the observer plugin saw no session.idle of ${id}`);
      return { payload: { hook_event_name: 'session.idle', session_id: id, cwd: user.project, reason: 'idle', transcript_items: last.messages } };
    },
  };
}

const SPECS: Spec[] = [
  {
    name: 'claude',
    title: 'Claude Code',
    shell: 'Bash',
    write: { name: 'Write', input: (user) => ({ file_path: join(user.project, 'plan.md'), content: PLAN }) },
    prepare: () => {},
    run: (user, server, prompt) => claude(['-p', prompt, '--allowedTools', 'Bash', 'Write'], user, server),
    resume: (user, server, id, prompt) => claude(['--resume', id, '-p', prompt, '--allowedTools', 'Bash', 'Write'], user, server),
    store: '.claude',
    turnEnd: std('Stop'),
  },
  {
    name: 'codex',
    title: 'Codex CLI',
    shell: 'exec_command',
    prepare: (user, server) => {
      prepareCodex(user, server);
      fs.mkdirSync(user.batonHome, { recursive: true });
    },
    run: (user, server, prompt) => codex([prompt], user, server),
    resume: (user, server, id, prompt) => codex(['resume', id, prompt], user, server),
    store: '.codex',
    turnEnd: std('Stop'),
  },
  {
    name: 'gemini',
    title: 'Gemini CLI',
    shell: 'run_shell_command',
    write: { name: 'write_file', input: (user) => ({ file_path: join(user.project, 'plan.md'), content: PLAN }) },
    prepare: (user) => prepareGemini(user),
    run: (user, server, prompt) => gemini(['-p', prompt, '--approval-mode', 'yolo'], user, server),
    resume: (user, server, id, prompt) => gemini(['--resume', id, '-p', prompt, '--approval-mode', 'yolo'], user, server),
    store: '.gemini',
    turnEnd: std('AfterAgent'),
  },
  {
    name: 'qwen',
    title: 'Qwen Code',
    shell: 'run_shell_command',
    write: { name: 'write_file', input: (user) => ({ file_path: join(user.project, 'plan.md'), content: PLAN }) },
    prepare: (user) => prepareQwen(user),
    run: (user, server, prompt) => qwen(['-p', prompt], user, server),
    resume: (user, server, id, prompt) => qwen(['--resume', id, '-p', prompt], user, server),
    store: '.qwen',
    turnEnd: std('Stop'),
  },
  {
    name: 'copilot',
    title: 'GitHub Copilot CLI',
    shell: 'bash',
    write: { name: 'create', input: (user) => ({ path: join(user.project, 'plan.md'), file_text: PLAN }) },
    prepare: () => {},
    run: (user, server, prompt) => copilot(['-p', prompt], user, server),
    resume: (user, server, id, prompt) => copilot([`--resume=${id}`, '-p', prompt], user, server),
    store: '.copilot',
    // Copilot's payload names no event: baton's installed command sets BATON_HOOK_EVENT.
    turnEnd: (user, id, path) => ({ payload: { sessionId: id, timestamp: Date.now(), cwd: user.project, transcriptPath: path, stopReason: 'end_turn', stop_hook_active: false }, env: { BATON_HOOK_EVENT: 'agentStop' } }),
  },
  {
    name: 'droid',
    title: 'Factory Droid',
    shell: 'Execute',
    // Droid's file tool (Create): its fields as the request's tool list names them.
    write: {
      name: 'Create',
      input: (user, req) => {
        const tool = (req.body?.tools ?? []).find((t: any) => t?.function?.name === 'Create')?.function;
        const input: Record<string, unknown> = {};
        for (const p of Object.keys(tool?.parameters?.properties ?? {})) {
          if (/path/i.test(p)) input[p] = join(user.project, 'plan.md');
          else if (/content|text/i.test(p)) input[p] = PLAN;
        }
        return input;
      },
    },
    prepare: (user, server) => prepareDroid(user, server),
    run: (user, server, prompt) => droid([prompt], user, server),
    noResume: "droid exec -s ID (Droid's resume) fetches the session from Factory's cloud and fails offline; the interactive resume needs a Factory login",
    store: '.factory',
    turnEnd: std('Stop'),
  },
  opencodeSpec('opencode', 'opencode', 120_000),
  opencodeSpec('kilo', 'Kilo', 240_000),
  {
    name: 'pi',
    title: 'pi',
    shell: 'bash',
    write: { name: 'write', input: () => ({ path: 'plan.md', content: PLAN }) },
    prepare: (user, server) => preparePi(user, server),
    run: (user, server, prompt) => pi(['-p', prompt], user, server),
    resume: (user, server, id, prompt) => pi(['--session', id, '-p', prompt], user, server),
    store: '.pi',
    turnEnd: (user, id, path) => ({ payload: { hook_event_name: 'agent_end', session_id: id, cwd: user.project, transcript_path: path } }),
  },
];

/** Every `transcript.item` in the store, across its sessions, in log order per session. */
function storeItems(user: User): any[] {
  const root = join(user.batonHome, 'sessions');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .sort()
    .flatMap((s) => {
      const f = join(root, s, 'events.jsonl');
      return fs.existsSync(f) ? readJsonl(f).filter((e) => e.type === 'transcript.item') : [];
    });
}

const key = (e: any): string => `${e.payload.agent_session}\u0000${e.payload.item_id}`;

function assertUniqueKeys(items: any[], what: string): void {
  const seen = new Map<string, number>();
  for (const e of items) seen.set(key(e), (seen.get(key(e)) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
  const records = items.filter((e) => twice.includes(key(e))).map((e) => ({ seq: e.seq, ...e.payload, text: String(e.payload.text ?? '').slice(0, 200) }));
  assert.deepEqual(twice, [], `${what}: (agent_session, item_id) recorded twice\n${JSON.stringify(records, null, 1)}`);
}

/** Every file under `dir`: its bytes' digest, size and mtime (a link: its target string). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const st = fs.lstatSync(p);
      const rel = relative(dir, p);
      if (e.isDirectory()) {
        out[`${rel}/`] = `dir mtime=${st.mtimeMs}`;
        walk(p);
      } else if (e.isSymbolicLink()) out[rel] = `link ${fs.readlinkSync(p)}`;
      else out[rel] = `${createHash('sha256').update(fs.readFileSync(p)).digest('hex')} size=${st.size} mtime=${st.mtimeMs}`;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** Files under `dir` (absolute paths) whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return hits;
}

/** The agent's transcript file of session `id` under its store (the largest, if the agent keeps stubs beside it). */
function transcriptFile(user: User, spec: Spec, id: string): string | undefined {
  const root = join(user.home, spec.store);
  const found = Object.keys(snapshot(root))
    .filter((f) => f.endsWith('.jsonl') && (f.includes(id) || f.includes(id.slice(0, 8))))
    .map((f) => join(root, f));
  return found.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
}

const inputHas = (input: unknown, value: string): boolean => !!input && typeof input === 'object' && Object.values(input as Record<string, unknown>).includes(value);

const installed = agentsInstalled();

after(() => removeUsers());

/**
 * Captures that may finish after the agent has exited; waits until the one of this run has
 * recorded itself in hooks/<agent>.transcript.last (at most 40 s for Copilot, 20 s for the
 * plugin's, then the test's own checks say what is missing).
 * - Copilot writes its events.jsonl as it exits, after its hooks ran (seen: the file missing at
 *   agentStop and sessionEnd of a turn with tool calls): its end event defers the capture to a
 *   detached run that waits for Copilot to let go (docs/adr/0070): `sessionEnd deferred`.
 * - opencode and Kilo run baton's hook from the plugin in a detached process and do not wait
 *   for the plugin's idle handler before a `run` exits: the hook may still be working (seen in
 *   CI under load): `session.idle`.
 */
async function settleDeferred(spec: { name: AgentName }, user: User, before: string | null): Promise<void> {
  const done = spec.name === 'copilot' ? /sessionEnd deferred/ : spec.name === 'opencode' || spec.name === 'kilo' ? /session\.idle/ : null;
  if (!done) return;
  const until = Date.now() + (spec.name === 'copilot' ? 40_000 : 20_000);
  while (Date.now() < until && (lastCapture(user, spec) === before || !done.test(lastCapture(user, spec) ?? ''))) await new Promise((r) => setTimeout(r, 100));
}
const lastCapture = (user: User, spec: { name: AgentName }): string | null => {
  const f = join(user.batonHome, 'hooks', `${spec.name}.transcript.last`);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null;
};

for (const spec of SPECS) {
  const skip = !installed[spec.name] ? `${spec.title} is not installed in .e2e/agents (run npm run test:e2e)` : false;
  describe(`${spec.title}: the transcript captured at turn end (baton install ${spec.name}, offline)`, { skip }, () => {
    let server: ModelServer;
    let user: User;
    let sid = '';
    let firstItems: any[] = [];

    after(async () => {
      await server?.close();
    });

    test('a scripted turn reaches the store once per item; a catch-up by hand adds nothing and leaves the agent files as they were; the secret is stored nowhere', async () => {
      server = await new ModelServer().start();
      user = newUser();
      spec.prepare(user, server);
      const inst = userBaton(['install', spec.name], user);
      assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);

      const queue: Array<(r: RecordedRequest) => Reply> = [() => ({ text: SAY, shell: COMMAND })];
      if (spec.write) queue.push((r) => ({ tool: spec.write!.name, input: spec.write!.input(user, r) }));
      queue.push(() => ({ text: `Done: the files are written. The token you asked for is ${SECRET} (a fake).` }));
      server.script = (r) => (queue.shift() ?? (() => ({ text: 'ok' })))(r);

      const run = await spec.run(user, server, PROMPT);
      await settleDeferred(spec, user, null);
      assertAgentRan(spec.name, run, 'first run');
      assert.equal(fs.readFileSync(join(user.project, 'notes.txt'), 'utf8'), 'hello\n', 'the shell call ran');
      if (spec.write) assert.equal(fs.readFileSync(join(user.project, 'plan.md'), 'utf8'), PLAN, 'the write tool ran');
      assert.equal(queue.length, 0, 'the model was asked for every scripted reply');

      const items = storeItems(user).filter((e) => e.payload.agent === spec.name);
      const lastRuns = (): string => {
        const dir = join(user.batonHome, 'hooks');
        return fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => `${n}: ${fs.readFileSync(join(dir, n), 'utf8').slice(0, 600)}`).join('\n') : '(no hooks folder)';
      };
      assert.ok(items.length > 0, `no transcript.item in the store\nthe hooks' last runs:\n${lastRuns()}\nagent stderr: ${run.stderr.slice(-2000)}`);
      const sessions = [...new Set(items.map((e) => e.payload.agent_session))];
      assert.equal(sessions.length, 1, `one agent session: ${sessions}`);
      sid = sessions[0];
      const dump = () => JSON.stringify(items.map((e) => e.payload), null, 1).slice(0, 6000);
      const one = (what: string, pred: (p: any) => boolean): any => {
        const found = items.filter((e) => pred(e.payload));
        assert.equal(found.length, 1, `${what}: ${found.length} items\n${dump()}`);
        return found[0].payload;
      };
      one('the user prompt', (p) => p.role === 'user' && p.kind === 'message' && String(p.text).includes(PROMPT));
      one('the assistant text', (p) => p.role === 'assistant' && p.kind === 'message' && String(p.text).includes(SAY));
      const call = one('the shell call', (p) => p.kind === 'tool_call' && p.tool?.name === spec.shell && inputHas(p.tool.input, COMMAND));
      assert.equal(call.role, 'assistant');
      assert.ok(call.tool.call_id, 'the call has its id');
      const result = one('the shell call result', (p) => p.kind === 'tool_result' && p.tool?.call_id === call.tool.call_id);
      assert.equal(result.role, 'tool');
      if (spec.write) {
        const write = one('the write call', (p) => p.kind === 'tool_call' && p.tool?.name === spec.write!.name);
        assert.deepEqual(write.files, ['plan.md'], `the write call's files\n${dump()}`);
        one('the write call result', (p) => p.kind === 'tool_result' && p.tool?.call_id === write.tool.call_id);
      }
      assertUniqueKeys(storeItems(user), 'after the first run');

      assert.ok(filesHolding(join(user.home, spec.store), SECRET).length > 0, 'the agent itself recorded the secret the model printed (the check below can fail)');
      const leaked = [...filesHolding(user.batonHome, SECRET), ...filesHolding(user.batonHome, SECRET.slice(4))];
      assert.deepEqual(leaked, [], 'the fake secret the model printed reached the store');

      // A catch-up as the turn-end hook would run it, by hand: the agent is not running, so
      // whatever changes in its store now is baton's doing.
      const path = spec.name === 'opencode' || spec.name === 'kilo' ? undefined : transcriptFile(user, spec, sid);
      if (spec.name !== 'opencode' && spec.name !== 'kilo') assert.ok(path, `no transcript file of ${sid} under ~/${spec.store}`);
      const { payload, env } = spec.turnEnd(user, sid, path);
      const before = snapshot(join(user.home, spec.store));
      if (path) assert.ok(before[relative(join(user.home, spec.store), path)], `the snapshot holds the transcript ${path}`);
      else assert.ok(Object.keys(before).some((f) => f.endsWith('.db')), `the snapshot holds ${spec.name}'s database`);
      const count = storeItems(user).length;
      const hook = userBaton(['hook', spec.name], user, { input: JSON.stringify(payload), env });
      assert.equal(hook.code, 0, hook.stderr);
      assert.doesNotMatch(hook.stderr, /TR00\d/, 'the catch-up reported a transcript problem');
      assert.deepEqual(snapshot(join(user.home, spec.store)), before, "baton's catch-up changed the agent's own files");
      assert.equal(storeItems(user).length, count, 'the catch-up added items the turn end had already captured');
      firstItems = storeItems(user);
    });

    test('the agent’s own resume adds only the new items', { skip: spec.noResume ?? false }, async (t) => {
      assert.ok(sid, 'the first test ran');
      server.script = () => ({ text: RESUMED });
      const beforeResume = lastCapture(user, spec);
      const run = await spec.resume!(user, server, sid, RESUME_PROMPT);
      await settleDeferred(spec, user, beforeResume);
      assertAgentRan(spec.name, run, 'resumed run');
      let all = storeItems(user);
      if ((spec.name === 'opencode' || spec.name === 'kilo') && all.length === firstItems.length) {
        // opencode and Kilo may exit before the plugin's idle handler has handed the turn over
        // (seen under load, ADR 0067): the documented recovery is history import from their
        // database, which must then bring in exactly the new items.
        t.diagnostic(`${spec.name}: the idle hook captured nothing before the agent exited; recovered by baton history import`);
        const imp = userBaton(['history', 'import', spec.name, '--json'], user);
        assert.equal(imp.code, 0, imp.stderr);
        all = storeItems(user);
      }
      assertUniqueKeys(all, 'after the resume');
      const old = new Set(firstItems.map(key));
      const added = all.filter((e) => !old.has(key(e)));
      assert.equal(all.length, firstItems.length + added.length, 'every earlier item is still there once');
      const dump = () => JSON.stringify(added.map((e) => e.payload), null, 1).slice(0, 6000);
      const types = () => fs.readdirSync(join(user.batonHome, 'sessions')).flatMap((s) => readJsonl(join(user.batonHome, 'sessions', s, 'events.jsonl')).map((e) => e.type));
      assert.ok(added.length >= 2, `the resume added ${added.length} items\n${dump()}\nthe store's events: ${types().join(' ')}\nagent stderr: ${run.stderr.slice(-1500)}`);
      for (const e of added) assert.equal(e.payload.agent_session, sid, `a new item of another agent session\n${dump()}`);
      assert.equal(added.filter((e) => e.payload.role === 'user' && e.payload.kind === 'message' && String(e.payload.text).includes(RESUME_PROMPT)).length, 1, `the resumed prompt once\n${dump()}`);
      assert.equal(added.filter((e) => e.payload.role === 'assistant' && e.payload.kind === 'message' && String(e.payload.text).includes(RESUMED)).length, 1, `the resumed answer once\n${dump()}`);
      for (const e of added) assert.ok(!String(e.payload.text ?? '').includes(SAY) && !String(e.payload.text ?? '').includes(PROMPT), `an earlier item came back under a new id\n${dump()}`);
      assert.deepEqual([...filesHolding(user.batonHome, SECRET), ...filesHolding(user.batonHome, SECRET.slice(4))], [], 'the fake secret reached the store');
    });
  });
}

/** The baton sessions (folder names) holding items of agent session `sid`. */
function sessionsOf(user: User, sid: string): string[] {
  const root = join(user.batonHome, 'sessions');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((s) => fs.existsSync(join(root, s, 'events.jsonl')) && readJsonl(join(root, s, 'events.jsonl')).some((e) => e.type === 'transcript.item' && e.payload.agent_session === sid))
    .sort();
}

// History import as a new user meets it (transcripts.md, "History import"): months of sessions
// recorded without baton, imported read-only, then resumed in the agent with baton installed —
// one baton session under the id the hooks use, continued, no item twice.
for (const spec of SPECS) {
  const skip = !installed[spec.name] ? `${spec.title} is not installed in .e2e/agents (run npm run test:e2e)` : (spec.noResume ?? false);
  test(`${spec.title}: a session recorded without baton is imported read-only, then resumed with baton installed into the same baton session, no item twice`, { skip }, async () => {
    const server = await new ModelServer().start();
    try {
      const user = newUser();
      spec.prepare(user, server);
      const queue: Array<(r: RecordedRequest) => Reply> = [() => ({ text: SAY, shell: COMMAND })];
      if (spec.write) queue.push((r) => ({ tool: spec.write!.name, input: spec.write!.input(user, r) }));
      queue.push(() => ({ text: 'Done: the files are written.' }));
      server.script = (r) => (queue.shift() ?? (() => ({ text: 'ok' })))(r);
      const first = await spec.run(user, server, PROMPT);
      assertAgentRan(spec.name, first, 'the run without baton');
      assert.ok(!fs.existsSync(join(user.batonHome, 'sessions')), 'no baton was installed: the store has no session yet');

      const before = snapshot(join(user.home, spec.store));
      const imp = userBaton(['history', 'import', spec.name, '--json'], user);
      assert.equal(imp.code, 0, `${imp.stderr}${imp.stdout}`);
      assert.deepEqual(snapshot(join(user.home, spec.store)), before, "the import changed the agent's own files");
      const imported = storeItems(user).filter((e) => e.payload.agent === spec.name);
      const sids = [...new Set(imported.map((e) => e.payload.agent_session))];
      assert.equal(sids.length, 1, `one agent session imported: ${sids} (${imp.stdout.slice(0, 800)})`);
      const sid = sids[0];
      assert.equal(imported.filter((e) => e.payload.role === 'assistant' && e.payload.kind === 'message' && String(e.payload.text).includes(SAY)).length, 1, 'the answer imported once');
      const [session] = sessionsOf(user, sid);
      const created = readJsonl(join(user.batonHome, 'sessions', session, 'events.jsonl'))[0];
      assert.equal(created.payload.created_by, `import:${spec.name}`, JSON.stringify(created));

      const inst = userBaton(['install', spec.name], user);
      assert.equal(inst.code, 0, `install failed: ${inst.stderr}${inst.stdout}`);
      server.script = () => ({ text: RESUMED });
      const beforeResume = lastCapture(user, spec);
      const run = await spec.resume!(user, server, sid, RESUME_PROMPT);
      assertAgentRan(spec.name, run, 'the resume with baton');
      await settleDeferred(spec, user, beforeResume);
      if ((spec.name === 'opencode' || spec.name === 'kilo') && !storeItems(user).some((e) => String(e.payload.text ?? '').includes(RESUMED))) {
        // The plugin's idle handler may not have run before the agent exited (ADR 0067): the recovery is the import again.
        assert.equal(userBaton(['history', 'import', spec.name, '--json'], user).code, 0);
      }
      const all = storeItems(user);
      assertUniqueKeys(all, 'after the import and the resume');
      assert.deepEqual(sessionsOf(user, sid), [session], 'the resume went on in the imported baton session');
      const texts = all.map((e) => String(e.payload.text ?? ''));
      assert.equal(texts.filter((t) => t.includes(RESUMED)).length, 1, 'the resumed answer once');
      assert.equal(texts.filter((t) => t.includes(SAY)).length, 1, 'the first answer still once');
      const again = userBaton(['history', 'import', spec.name, '--json'], user);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(storeItems(user).length, all.length, 'a second import added nothing');
    } finally {
      await server.close();
    }
  });
}
