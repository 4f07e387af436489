// pi: `baton install pi` writes the extension baton owns; install, status, verify and
// uninstall read its entries line back; a file at that path baton did not write is refused
// (HK102, nothing changed). The extension's own code is run here the way pi runs it (its
// default export given an `on` registry and each event's context, no pi in the loop): the
// payloads it pipes into the real `baton hook pi`, the context it hands back, and that a
// hook that hangs or cannot run never blocks past the timeout nor throws. The real pi runs
// it in test/e2e/pi.test.ts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { renderPiExtension } from '../src/providers/pi-extension.ts';
import { type AgentWorld, BIN, agentWorld, baton, readJsonl, treeHash } from './helpers.ts';

const worlds: AgentWorld[] = [];
const saved = { HOME: process.env.HOME, BATON_HOME: process.env.BATON_HOME };
after(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
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

const entriesOf = (file: string): Record<string, string> => JSON.parse(/^const BATON_HOOKS: Record<string, string> = (\{.*\});$/m.exec(fs.readFileSync(file, 'utf8'))![1]);

test('pi (user scope): install writes ~/.pi/agent/extensions/baton.ts, a second install keeps it, status says wired, verify passes, uninstall removes it and the folders it made', () => {
  const w = world();
  fs.mkdirSync(join(w.home, '.pi', 'agent'), { recursive: true });
  fs.writeFileSync(join(w.home, '.pi', 'agent', 'models.json'), '{}\n');
  ok(w, ['install', 'pi']);
  const file = join(w.home, '.pi', 'agent', 'extensions', 'baton.ts');
  const hooks = entriesOf(file);
  assert.deepEqual(Object.keys(hooks), ['session_start', 'input', 'session_before_compact', 'session_shutdown', 'agent_end']);
  // The store is not the default one (BATON_HOME): the entry names it (docs/hooks.md).
  for (const c of Object.values(hooks)) assert.equal(c, `${process.execPath} ${BIN} hook pi --home ${w.store}`);
  assert.match(fs.readFileSync(file, 'utf8'), /^const TIMEOUT_MS = 10000;$/m);
  const before = fs.readFileSync(file, 'utf8');
  const again = ok(w, ['install', 'pi', '--json']);
  assert.equal(again.json.changed ?? again.json.reports?.[0]?.changed, false);
  assert.equal(fs.readFileSync(file, 'utf8'), before);
  const st = ok(w, ['status', '--json']);
  const state = (row: string) => st.json.rows.find((r: any) => r.row === row)?.state;
  assert.deepEqual(['pi', 'pi:session', 'pi:pointer'].map(state), ['wired', 'wired', 'wired']);
  const v = ok(w, ['verify', 'pi', '--json']);
  assert.equal(v.json.entries.length, 5);
  for (const r of v.json.entries) assert.equal(r.ok, true, `${r.event}: ${r.problems.join('; ')}`);
  assert.equal(fs.existsSync(w.store), false, 'verify wrote nothing');
  ok(w, ['uninstall', 'pi']);
  assert.equal(fs.existsSync(join(w.home, '.pi', 'agent', 'extensions')), false);
  assert.equal(fs.readFileSync(join(w.home, '.pi', 'agent', 'models.json'), 'utf8'), '{}\n');
});

test('pi (project scope): .pi/extensions/baton.ts calls the shim through the repo root; --aspects session writes only the session events', () => {
  const w = world({ BATON_BIN: BIN });
  ok(w, ['install', 'pi', '--scope', 'project', '--aspects', 'session']);
  const file = join(w.project, '.pi', 'extensions', 'baton.ts');
  assert.deepEqual(entriesOf(file), {
    session_start: '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/pi --aspects session',
    session_shutdown: '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/pi --aspects session',
  });
  assert.ok(fs.statSync(join(w.project, '.baton', 'hooks', 'pi')).mode & 0o100);
  const v = ok(w, ['verify', 'pi', '--json']);
  for (const r of v.json.entries) assert.equal(r.ok, true, `${r.event}: ${r.problems.join('; ')}`);
  ok(w, ['uninstall', 'pi', '--scope', 'project']);
  assert.deepEqual(fs.readdirSync(w.project), []);
});

test('pi: a baton.ts that baton did not write is refused with HK102 by install and uninstall, and nothing changes', () => {
  const w = world();
  const dir = join(w.home, '.pi', 'agent', 'extensions');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(join(dir, 'baton.ts'), 'export default function (pi) {}\n');
  const hash = treeHash(w.root);
  for (const verb of ['install', 'uninstall']) {
    const r = baton([verb, 'pi'], { env: w.env, cwd: w.project });
    assert.notEqual(r.code, 0, verb);
    assert.match(r.stderr, /HK102/, verb);
    assert.equal(treeHash(w.root), hash, `${verb} changed nothing`);
  }
});

/**
 * The extension as pi loads it: its default export, given a registry of handlers. Its hooks
 * inherit this process's environment as they inherit pi's, so HOME and BATON_HOME name the world's.
 */
async function loadExtension(w: AgentWorld, hooks: Record<string, string>, timeoutSec = 10) {
  process.env.HOME = w.home;
  process.env.BATON_HOME = w.store;
  delete process.env.BATON_SESSION;
  const file = join(w.root, `ext-${Object.keys(hooks).join('-') || 'none'}-${timeoutSec}.ts`);
  fs.writeFileSync(file, renderPiExtension(Object.entries(hooks).map(([event, command]) => ({ event, command })), timeoutSec));
  const mod = await import(pathToFileURL(file).href);
  const handlers: Record<string, (event: unknown, ctx: unknown) => Promise<any>> = {};
  mod.default({ on: (name: string, fn: any) => (handlers[name] = fn) });
  return handlers;
}

function piContext(w: AgentWorld, sessionId: string, messages: number) {
  const said: string[] = [];
  const ctx = {
    cwd: w.project,
    hasUI: true,
    ui: { notify: (line: string) => said.push(line) },
    isIdle: () => true,
    abort: () => {},
    sessionManager: {
      getSessionId: () => sessionId,
      getSessionFile: () => join(w.home, 'session.jsonl'),
      getEntries: () => Array.from({ length: messages }, () => ({ type: 'message' })),
    },
  };
  return { ctx, said };
}

test('pi extension: the payloads reach baton hook pi, the start and prompt contexts go out as one message at before_agent_start, a start with history is resume, quit closes', async () => {
  const w = world();
  const command = `${process.execPath} ${BIN} hook pi`;
  const on = await loadExtension(w, { session_start: command, input: command, session_before_compact: command, session_shutdown: command });
  const sid = 'pi-ext-test-1';
  const { ctx, said } = piContext(w, sid, 0);
  await on.session_start({ reason: 'startup' }, ctx);
  assert.equal(await on.input({ text: 'first prompt', source: 'interactive' }, ctx), undefined);
  const injected = await on.before_agent_start({ prompt: 'first prompt' }, ctx);
  assert.equal(injected.message.customType, 'baton');
  assert.match(injected.message.content, /^TASK_POINTER_V2_BOOTSTRAP\n/);
  // The start's block (ABSENT), then the prompt's (its CLEARED fence), in one message.
  assert.deepEqual(
    [...injected.message.content.matchAll(/^STATUS=(\w+)$/gm)].map((m) => m[1]),
    ['ABSENT', 'CLEARED'],
  );
  assert.equal(await on.before_agent_start({ prompt: 'first prompt' }, ctx), undefined, 'said once: nothing left to inject');
  assert.equal(await on.input({ text: 'from another extension', source: 'extension' }, ctx), undefined);
  await on.session_before_compact({ customInstructions: 'keep the plan' }, ctx);
  await on.session_before_compact({}, ctx);
  await on.session_compact({}, ctx);
  assert.match((await on.before_agent_start({ prompt: 'x' }, ctx)).message.content, /TASK_POINTER_V2/, 'after a compaction the block is said again');
  await on.session_shutdown({ reason: 'reload' }, ctx);
  await on.session_shutdown({ reason: 'quit' }, ctx);
  const resumed = piContext(w, sid, 3);
  await on.session_start({ reason: 'startup' }, resumed.ctx);
  assert.deepEqual(said, []);
  const evs = readJsonl(join(w.store, 'sessions', sid, 'events.jsonl'));
  assert.deepEqual(
    evs.filter((e) => e.type === 'episode.opened').map((e) => e.payload.source),
    ['startup', 'resume'],
  );
  assert.deepEqual(
    evs.filter((e) => e.type === 'episode.closed').map((e) => [e.payload.reason, e.payload.outcome]),
    [['quit', 'closed']],
  );
  assert.deepEqual(
    evs.filter((e) => e.type === 'prompt.submitted').map((e) => e.payload.text),
    ['first prompt'],
  );
});

test('pi extension: agent_end (the turn end) pipes the session id, cwd and session file into its command, and is silent without an entry', async () => {
  const w = world();
  const out = join(w.root, 'agent-end.json');
  const on = await loadExtension(w, { agent_end: `cat > '${out}'` });
  const { ctx, said } = piContext(w, 'pi-ext-turn-end', 2);
  assert.equal(await on.agent_end({ type: 'agent_end', messages: [] }, ctx), undefined);
  assert.deepEqual(JSON.parse(fs.readFileSync(out, 'utf8')), { hook_event_name: 'agent_end', session_id: 'pi-ext-turn-end', cwd: w.project, transcript_path: join(w.home, 'session.jsonl') });
  fs.rmSync(out);
  const none = await loadExtension(w, { session_start: `cat > '${out}'` });
  assert.equal(await none.agent_end({ type: 'agent_end', messages: [] }, ctx), undefined);
  assert.equal(fs.existsSync(out), false);
  assert.deepEqual(said, []);
});

test('pi extension: a hook that hangs is stopped at the timeout and one that cannot run is one line to the user; no handler throws or blocks pi', async () => {
  const w = world();
  const on = await loadExtension(w, { session_start: 'sleep 30', input: 'echo "not json"; echo "baton: hook: X something" >&2', session_shutdown: 'exit 3' }, 1);
  const { ctx, said } = piContext(w, 'pi-ext-test-2', 0);
  const t0 = Date.now();
  await on.session_start({ reason: 'startup' }, ctx);
  assert.ok(Date.now() - t0 < 20_000, 'the hanging hook did not hold pi until it ended by itself');
  assert.match(said[0], /the session_start hook ran over 1000 ms and was stopped/);
  assert.equal(await on.input({ text: 'p', source: 'interactive' }, ctx), undefined);
  assert.deepEqual(said.slice(1), ['baton: hook: X something', 'baton: pi: the hook printed something that is not JSON; ignored']);
  assert.equal(await on.before_agent_start({ prompt: 'p' }, ctx), undefined);
  await on.session_shutdown({ reason: 'quit' }, ctx);
  const broken = { ...ctx, sessionManager: null };
  assert.equal(await on.input({ text: 'p', source: 'interactive' }, broken), undefined);
  assert.match(said.at(-1)!, /^baton: pi: input: /);
});
