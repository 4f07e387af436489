// opencode and Kilo through the plugin file `baton install` writes, loaded here as the agent
// loads it (an ES module in the agent's process) and fed the events and hook calls opencode
// 1.18.33 and Kilo 7.7.7 made in real runs (test/fixtures/providers/{opencode,kilo}/), in their
// order. The plugin spawns the real `baton hook` for each; what it hands back to the agent
// (system prompt, message parts, compaction context) is checked, and so is the store.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { kilo, opencode } from '../src/providers/opencode.ts';
import { renderPlugin } from '../src/providers/plugin-file.ts';
import { opencodeReader } from '../src/transcripts/opencode.ts';
import { newParseState, parseEntries } from '../src/transcripts/parse.ts';
import { type AgentWorld, BIN, FIXTURES, agentWorld, baton, readJsonl, treeHash } from './helpers.ts';

const worlds: AgentWorld[] = [];
after(() => {
  for (const w of worlds) fs.rmSync(w.root, { recursive: true, force: true });
});

function world(extra: Record<string, string | undefined> = {}): AgentWorld {
  const w = agentWorld(extra);
  worlds.push(w);
  return w;
}

function ok(w: AgentWorld, args: string[]) {
  const r = baton(args, { env: w.env, cwd: w.project });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
}

const observed = (agent: string, file: string): { tag: string; data: any }[] =>
  fs
    .readFileSync(join(FIXTURES, agent, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l.replaceAll('/home/u/proj', '__PROJECT__')));

type Hooks = Record<string, (...a: any[]) => Promise<void>>;
let loads = 0;

/** Loads a plugin file as opencode does (a fresh module per process) with the agent's environment. */
async function loadPlugin(file: string, w: AgentWorld, client?: unknown): Promise<Hooks> {
  // The hook inherits the agent's environment: here, this test process's.
  for (const [k, v] of Object.entries(w.env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const mod = await import(`${pathToFileURL(file).href}?load=${++loads}`);
  assert.deepEqual(Object.keys(mod), ['BatonPlugin'], 'the plugin exports its one plugin function');
  return mod.BatonPlugin({ client, directory: w.project, worktree: w.project });
}

interface Seen {
  system: string[][];
  parts: any[][];
  compaction: string[][];
}

/** Replays one observed process through a freshly loaded plugin: what the agent would have sent to the model. */
async function replay(hooks: Hooks, lines: { tag: string; data: any }[], w: AgentWorld): Promise<Seen> {
  const fix = (v: any) => JSON.parse(JSON.stringify(v).replaceAll('__PROJECT__', w.project));
  const seen: Seen = { system: [], parts: [], compaction: [] };
  for (const { tag, data: raw } of lines) {
    const data = fix(raw);
    if (tag.startsWith('event:')) await hooks.event({ event: { type: tag.slice('event:'.length), properties: data } });
    else if (tag === 'chat.message') {
      const output = { message: data.message, parts: data.parts };
      await hooks['chat.message'](data.input, output);
      seen.parts.push(output.parts);
    } else if (tag === 'experimental.chat.system.transform') {
      const output = { system: ['You are opencode.'] };
      await hooks['experimental.chat.system.transform'](data.input, output);
      seen.system.push(output.system.slice(1));
    } else if (tag === 'experimental.session.compacting') {
      const output = { context: [] as string[] };
      await hooks['experimental.session.compacting'](data.input, output);
      seen.compaction.push(output.context);
    }
  }
  return seen;
}

const events = (w: AgentWorld, sid: string): any[] => readJsonl(join(w.store, 'sessions', sid, 'events.jsonl'));

for (const [adapter, fixture, scope] of [
  [opencode, 'observed-1.18.33-run.jsonl', 'user'],
  [opencode, 'observed-1.18.33-run.jsonl', 'project'],
  [kilo, 'observed-7.7.7-run.jsonl', 'user'],
] as const) {
  test(`${adapter.name} (${scope} scope): the observed run gets the start's pointer block in the system prompt, the prompt's as a synthetic part, and session.idle closes the episode as closed`, async () => {
    const w = world(scope === 'project' ? { BATON_BIN: BIN } : {});
    ok(w, ['install', adapter.name, '--scope', scope]);
    const file = join(scope === 'user' ? w.home : w.project, scope === 'user' ? `.config/${adapter.name}` : `.${adapter.name}`, 'plugin', 'baton.js');
    const lines = observed(adapter.name, fixture);
    const sid = lines.find((l) => l.tag === 'event:session.created')!.data.sessionID;
    const seen = await replay(await loadPlugin(file, w), lines, w);

    assert.equal(seen.system.length, lines.filter((l) => l.tag === 'experimental.chat.system.transform').length);
    assert.ok(seen.system.length >= 1);
    for (const s of seen.system) {
      assert.equal(s.length, 1, 'one context pushed per request');
      assert.match(s[0], /^TASK_POINTER_V2_BOOTSTRAP\n/);
      assert.match(s[0], new RegExp(`^SESSION_ID=${sid}$`, 'm'));
    }
    const [parts] = seen.parts;
    assert.equal(parts.length, 2, "the user's text and baton's part");
    assert.equal(parts[1].synthetic, true);
    assert.equal(parts[1].messageID, parts[0].messageID);
    assert.match(parts[1].text, /^TASK_POINTER_V2_BOOTSTRAP/);

    const ev = events(w, sid);
    assert.deepEqual(
      ev.filter((e) => e.type === 'episode.opened').map((e) => [e.payload.provider, e.payload.source]),
      [[adapter.name, 'startup']],
    );
    assert.deepEqual(
      ev.filter((e) => e.type === 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
      [['idle', 'closed']],
    );
    assert.deepEqual(
      ev.filter((e) => e.type === 'prompt.submitted').map((e) => e.payload.text),
      ['"say hi"'],
    );
    const st = ok(w, ['status', '--json']);
    for (const row of [adapter.name, `${adapter.name}:session`, `${adapter.name}:pointer`]) assert.equal(st.json.rows.find((r: any) => r.row === row)?.state, 'wired', row);
    const v = baton(['verify', adapter.name, '--json'], { env: w.env, cwd: w.project });
    assert.equal(v.code, 0, v.stdout);
    assert.equal(v.json.entries.length, 4);
    for (const r of v.json.entries) assert.equal(r.ok, true, `${r.event}: ${r.problems.join('; ')}`);
  });
}

test('opencode: a run that exited before its idle handed the turn over is caught up at the next resume (the plugin sends the older messages at the start), each item once', async () => {
  const w = world();
  ok(w, ['install', 'opencode']);
  const file = join(w.home, '.config/opencode/plugin/baton.js');
  // What opencode 1.18.33's client returned for a first run's session (test/fixtures/transcripts).
  const first = JSON.parse(fs.readFileSync(join(FIXTURES, '..', 'transcripts', 'opencode', 'opencode-1.18.33-messages.first.json'), 'utf8'));
  const agentSession = first[0].info.sessionID as string;
  const client = { session: { messages: async ({ path }: any) => ({ data: path.id === agentSession ? first : [] }) } };
  const expected = parseEntries(opencodeReader, first, newParseState()).items.length;
  assert.ok(expected >= 4, `${expected} items in the fixture`);

  const prompt = async () => {
    const hooks = await loadPlugin(file, w, client);
    await hooks['chat.message']({ sessionID: agentSession }, { message: {}, parts: [{ id: 'prt_go', messageID: 'msg_go', type: 'text', text: 'go on' }] });
  };
  await prompt();
  const [sid] = fs.readdirSync(join(w.store, 'sessions'));
  const ev = events(w, sid);
  const items = ev.filter((e) => e.type === 'transcript.item');
  assert.equal(items.length, expected, JSON.stringify(ev.map((e) => e.type)));
  assert.ok(items.every((e) => e.payload.agent === 'opencode' && e.payload.agent_session === agentSession));
  assert.ok(items.some((e) => e.payload.role === 'assistant' && e.payload.kind === 'tool_call'));
  const opened = ev.findIndex((e) => e.type === 'episode.opened');
  assert.equal(ev[opened].payload.source, 'resume');
  assert.ok(ev.findIndex((e) => e.type === 'transcript.item') < opened, 'the caught-up items come before the episode the resume opens');

  await prompt();
  assert.equal(events(w, sid).filter((e) => e.type === 'transcript.item').length, expected, 'a second resume adds none of them again');
});

test('opencode: a later process that only compacts (the summarize API) starts the session again as compact, with the block back in the system prompt', async () => {
  const w = world();
  ok(w, ['install', 'opencode']);
  const file = join(w.home, '.config/opencode/plugin/baton.js');
  const run = observed('opencode', 'observed-1.18.33-run.jsonl');
  const sid = run.find((l) => l.tag === 'event:session.created')!.data.sessionID;
  await replay(await loadPlugin(file, w), run, w);
  const seen = await replay(await loadPlugin(file, w), observed('opencode', 'observed-1.18.33-summarize.jsonl'), w);
  assert.deepEqual(seen.compaction, [[]], 'pre-compact gives no context (the pointer is on disk; the block comes back after)');
  // The summarize request itself was made before session.compacted: no start yet, nothing pushed.
  assert.deepEqual(seen.system, [[]]);
  const ev = events(w, sid);
  assert.deepEqual(
    ev.filter((e) => e.type === 'episode.opened').map((e) => e.payload.source),
    ['startup', 'compact'],
  );
  assert.deepEqual(
    ev.filter((e) => e.type === 'episode.closed').map((e) => e.payload.reason),
    ['idle', 'idle'],
  );
  // The next request of this session carries the block again.
  const hooks = await loadPlugin(file, w);
  await hooks.event({ event: { type: 'session.compacted', properties: { sessionID: sid } } });
  const out = { system: [] as string[] };
  await hooks['experimental.chat.system.transform']({ sessionID: sid }, out);
  assert.match(out.system[0] ?? '', /^TASK_POINTER_V2_BOOTSTRAP/);
});

test("opencode: a subagent's session (parentID) is not the user's: nothing is run or written for it", async () => {
  const w = world();
  ok(w, ['install', 'opencode']);
  const hooks = await loadPlugin(join(w.home, '.config/opencode/plugin/baton.js'), w);
  const child = 'ses_child0000000000000000000';
  await hooks.event({ event: { type: 'session.created', properties: { sessionID: child, info: { id: child, parentID: 'ses_parent', directory: w.project } } } });
  const parts = [{ type: 'text', text: 'do the subtask', id: 'prt_1', messageID: 'msg_1', sessionID: child }];
  await hooks['chat.message']({ sessionID: child }, { message: {}, parts });
  const out = { system: [] as string[] };
  await hooks['experimental.chat.system.transform']({ sessionID: child }, out);
  await hooks.event({ event: { type: 'session.idle', properties: { sessionID: child } } });
  assert.equal(parts.length, 1);
  assert.deepEqual(out.system, []);
  assert.equal(fs.existsSync(join(w.store, 'sessions')), false);
});

test('opencode: a message with only synthetic parts (no text of the user\'s) is no prompt: no context, nothing archived, the pointer stays as published', async () => {
  const w = world();
  ok(w, ['install', 'opencode']);
  const hooks = await loadPlugin(join(w.home, '.config/opencode/plugin/baton.js'), w);
  const sid = 'ses_synthetic0000000000000000';
  await hooks.event({ event: { type: 'session.created', properties: { sessionID: sid, info: { id: sid, directory: w.project } } } });
  const state = join(w.store, 'sessions', sid, 'state.json');
  const before = fs.existsSync(state) ? fs.readFileSync(state, 'utf8') : null;
  const parts = [{ type: 'text', text: 'Continue if you have next steps', synthetic: true, id: 'prt_1', messageID: 'msg_1', sessionID: sid }];
  await hooks['chat.message']({ sessionID: sid }, { message: {}, parts });
  assert.equal(parts.length, 1);
  assert.deepEqual(
    events(w, sid).filter((e) => e.type === 'prompt.submitted'),
    [],
  );
  assert.equal(fs.existsSync(state) ? fs.readFileSync(state, 'utf8') : null, before);
});

test('the plugin fails open: a hook that hangs is killed after timeoutMs, one that prints no JSON or cannot start gives no context; nothing throws into the agent', async () => {
  const w = world();
  const dir = join(w.root, 'plugins');
  fs.mkdirSync(dir);
  const pidFile = join(w.root, 'hook.pid');
  const file = join(dir, 'baton.js');
  fs.writeFileSync(
    file,
    renderPlugin({ ...opencode, timeoutValue: 300 }, [
      { event: 'session.start', command: 'echo not json' },
      { event: 'chat.message', command: `echo $$ > '${pidFile}'; exec sleep 60` },
      { event: 'session.idle', command: '/nonexistent/baton hook opencode' },
    ]),
  );
  const hooks = await loadPlugin(file, w);
  const sid = 'ses_failopen00000000000000000';
  await hooks.event({ event: { type: 'session.created', properties: { sessionID: sid, info: { id: sid, directory: w.project } } } });
  const parts = [{ type: 'text', text: 'hello', id: 'prt_1', messageID: 'msg_1', sessionID: sid }];
  await hooks['chat.message']({ sessionID: sid }, { message: {}, parts });
  assert.equal(parts.length, 1, 'no context from a killed hook');
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the hanging hook was killed');
  const out = { system: [] as string[] };
  await hooks['experimental.chat.system.transform']({ sessionID: sid }, out);
  assert.deepEqual(out.system, [], 'no context from stdout that is not JSON');
  await hooks.event({ event: { type: 'session.idle', properties: { sessionID: sid } } });
  // A malformed call (no output object) is swallowed too.
  await hooks['experimental.chat.system.transform']({ sessionID: sid }, undefined);
  await hooks['experimental.session.compacting']({ sessionID: sid }, undefined);
});

test('opencode and kilo: install then uninstall leaves HOME and the repository as they were; a foreign plugin beside baton.js is never touched', () => {
  const w = world({ BATON_BIN: BIN });
  const foreign = join(w.home, '.config/opencode/plugin/mine.js');
  fs.mkdirSync(join(w.home, '.config/opencode/plugin'), { recursive: true });
  fs.writeFileSync(foreign, 'export const Mine = async () => ({});\n');
  const home0 = treeHash(w.home);
  const proj0 = treeHash(w.project);
  for (const agent of ['opencode', 'kilo']) {
    ok(w, ['install', agent]);
    ok(w, ['install', agent, '--scope', 'project']);
    assert.ok(fs.existsSync(join(w.project, '.baton/hooks', agent)));
    assert.equal(ok(w, ['install', agent, '--json']).json.changed, false, 'a second install changes nothing');
  }
  for (const agent of ['opencode', 'kilo']) {
    const u = ok(w, ['uninstall', agent, '--json']);
    assert.deepEqual(
      u.json.results.map((r: any) => [r.scope, r.removed, r.file_removed]),
      [
        ['user', 4, true],
        ['project', 4, true],
      ],
    );
  }
  assert.equal(treeHash(w.home), home0);
  assert.equal(treeHash(w.project), proj0);
});

test('opencode: an earlier baton plugin that differs is refused (HK101) and nothing changes; a baton.js baton did not write is refused (HK102)', () => {
  const w = world();
  const file = join(w.home, '.config/opencode/plugin/baton.js');
  ok(w, ['install', 'opencode', '--aspects', 'session']);
  assert.deepEqual(Object.keys(JSON.parse(/^const BATON = (.*);$/m.exec(fs.readFileSync(file, 'utf8'))![1]).hooks), ['session.start', 'session.idle']);
  const before = treeHash(w.home);
  const r = baton(['install', 'opencode'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /HK101/);
  assert.equal(treeHash(w.home), before);
  ok(w, ['install', 'opencode', '--force']);
  assert.deepEqual(Object.keys(JSON.parse(/^const BATON = (.*);$/m.exec(fs.readFileSync(file, 'utf8'))![1]).hooks), ['session.start', 'session.idle', 'chat.message', 'session.compacting']);
  fs.writeFileSync(file, 'export const Mine = async () => ({});\n');
  const bad = treeHash(w.home);
  for (const args of [['install', 'opencode'], ['uninstall', 'opencode']]) {
    const r2 = baton(args, { env: w.env, cwd: w.project });
    assert.equal(r2.code, 2, args.join(' '));
    assert.match(r2.stderr, /HK102/);
    assert.equal(treeHash(w.home), bad);
  }
});
