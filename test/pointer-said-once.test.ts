// Said once (docs/pointer.md): the pointer block in full when something it shows changed, one
// UNCHANGED line when nothing did — per provider session, through the real `baton hook` run as
// each provider runs it (the harness reads the settings `baton install` wrote) with the
// providers' own payloads, and the real `baton pointer publish` / `baton ref capture`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type AgentWorld, BIN, ROOT, agentWorld, baton } from './helpers.ts';
import { pointerBlocks } from './e2e/pointer-agent.ts';
import { type ProviderName, runProviderEvent } from './harness/providers.ts';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'providers');
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';

/** Each provider's settings files and its payload fixtures for start, prompt and pre-compact. */
const PROVIDERS: Record<ProviderName, { settings: (w: AgentWorld) => string[]; start: string; prompt: string; preCompact: string }> = {
  claude: {
    settings: (w) => [join(w.home, '.claude/settings.json'), join(w.project, '.claude/settings.json')],
    start: 'SessionStart.startup.json',
    prompt: 'UserPromptSubmit.json',
    preCompact: 'PreCompact.json',
  },
  codex: {
    settings: (w) => [join(w.home, '.codex/hooks.json'), join(w.project, '.codex/hooks.json')],
    start: 'SessionStart.json',
    prompt: 'UserPromptSubmit.json',
    preCompact: 'PreCompact.json',
  },
  gemini: {
    settings: (w) => [join(w.home, '.gemini/settings.json'), join(w.project, '.gemini/settings.json')],
    start: 'SessionStart.json',
    prompt: 'BeforeAgent.json',
    preCompact: 'PreCompress.json',
  },
  qwen: {
    settings: (w) => [join(w.home, '.qwen/settings.json'), join(w.project, '.qwen/settings.json')],
    start: 'SessionStart.json',
    prompt: 'UserPromptSubmit.json',
    preCompact: 'PreCompact.json',
  },
  droid: {
    settings: (w) => [join(w.home, '.factory/settings.json'), join(w.project, '.factory/settings.json')],
    start: 'SessionStart.json',
    prompt: 'UserPromptSubmit.json',
    preCompact: 'PreCompact.json',
  },
};

interface Agent {
  w: AgentWorld;
  /** Runs one event as the provider would and returns the one context it injected ('' for none). */
  event: (kind: 'start' | 'prompt' | 'preCompact', over?: Record<string, unknown>) => string;
}

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function world(): AgentWorld {
  const w = agentWorld({ BATON_BIN: BIN });
  roots.push(w.root);
  return w;
}

function agent(provider: ProviderName, sid: string, w: AgentWorld = world(), env: Record<string, string> = {}): Agent {
  if (!fs.existsSync(PROVIDERS[provider].settings(w)[1])) {
    const r = baton(['install', provider, '--scope', 'project'], { env: w.env, cwd: w.project });
    assert.equal(r.code, 0, r.stderr);
  }
  return {
    w,
    event(kind, over = {}) {
      const fixture = JSON.parse(fs.readFileSync(join(FIXTURES, provider, PROVIDERS[provider][kind]), 'utf8'));
      const payload = { ...fixture, session_id: sid, cwd: w.project, ...over };
      const out = runProviderEvent({ provider, settingsFiles: PROVIDERS[provider].settings(w), payload, projectDir: w.project, env: { ...w.env, ...env } });
      assert.deepEqual(out.errors, [], `${kind}: ${JSON.stringify(out.runs)}`);
      assert.equal(out.blocked, false);
      assert.ok(out.contexts.length <= 1);
      return out.contexts[0] ?? '';
    },
  };
}

/** The KEY=VALUE fields of the first pointer block in `c` (the e2e suite's parser). */
const fields = (c: string): Record<string, string> => pointerBlocks(c)[0]?.fields ?? {};

const isFull = (c: string): boolean => /^TASK_POINTER_V2(_BOOTSTRAP)?\n/.test(c) && c.includes('\nINSTRUCTION=');
const bytes = (s: string): number => Buffer.byteLength(s);

/** The UNCHANGED line must name the last full block: its status, revision and NEXT_ACTION. */
function assertShort(c: string, full: string): void {
  const f = fields(full);
  const marker = full.split('\n')[0];
  assert.equal(c, `${marker} UNCHANGED STATUS=${f.STATUS} REVISION=${f.REVISION} NEXT_ACTION=${f.NEXT_ACTION}\n`);
  assert.ok(bytes(c) <= 300, `${bytes(c)} bytes`);
}

function publishFrom(w: AgentWorld, full: string, text: string, status = 'CLEAN'): void {
  const f = fields(full);
  const req = { schema_version: 3, session_id: f.SESSION_ID, expected_generation: f.GENERATION, expected_revision: Number(f.REVISION), task_id: f.TASK_ID ?? TASK, target_status: status, pointer_text: text };
  const r = baton(['pointer', 'publish'], { env: w.env, input: JSON.stringify(req) });
  assert.equal(r.code, 0, r.stderr + r.stdout);
}

/** A claude session with a published pointer, marked DIRTY by a prompt: returns that prompt's full block. */
function dirty(a: Agent): string {
  a.event('start');
  publishFrom(a.w, a.event('prompt'), 'Goal: say it once\nNext: keep it short');
  const p = a.event('prompt');
  assert.equal(fields(p).STATUS, 'DIRTY');
  return p;
}

/** The block without its age line, which grows between two renders of the same state. */
const ageless = (c: string): string => c.replace(/^POINTER_AGE_SECONDS=\d+$/m, '');

for (const provider of ['claude', 'codex', 'gemini', 'qwen', 'droid'] as const) {
  test(`${provider}: start → prompt (full) → prompt (short) → publish → prompt (full) → prompt (short) → pre-compact → prompt (full)`, () => {
    const sid = randomUUID();
    const a = agent(provider, sid);
    const start = a.event('start');
    assert.ok(isFull(start), start);
    assert.equal(fields(start).STATUS, 'ABSENT');

    // The first prompt writes the CLEARED fence: what the start showed changed.
    const p1 = a.event('prompt');
    assert.ok(isFull(p1), p1);
    assert.deepEqual([fields(p1).STATUS, fields(p1).REVISION], ['CLEARED', '1']);
    assertShort(a.event('prompt'), p1);

    publishFrom(a.w, p1, 'Goal: say it once\nNext: test every provider');
    // The prompt marks the published pointer DIRTY (a write): the full block, with the text.
    const p3 = a.event('prompt');
    assert.ok(isFull(p3), p3);
    assert.deepEqual([fields(p3).STATUS, fields(p3).REVISION, fields(p3).NEXT_ACTION], ['DIRTY', '3', 'MERGE_THEN_REPUBLISH']);
    assert.ok(p3.includes('POINTER_TEXT_BEGIN\nGoal: say it once\nNext: test every provider\nPOINTER_TEXT_END\n'));
    assert.ok(bytes(p3) < 1024 + bytes(fields(p3).PUBLISHER), `${bytes(p3)} bytes`);
    const p4 = a.event('prompt');
    assertShort(p4, p3);

    // The provider is about to drop context: the next prompt says it all again, then once.
    assert.equal(a.event('preCompact'), '');
    const p5 = a.event('prompt');
    assert.equal(ageless(p5), ageless(p3));
    assertShort(a.event('prompt'), p5);
  });
}

test('every SessionStart shows the full block, even with nothing changed, and the next prompt is short', () => {
  const a = agent('claude', randomUUID());
  dirty(a);
  for (const source of ['resume', 'compact', 'startup', 'something-new']) {
    const s = a.event('start', { source });
    assert.ok(isFull(s), `${source}: ${s}`);
    assert.deepEqual([fields(s).STATUS, fields(s).REVISION], ['DIRTY', '3']);
    assertShort(a.event('prompt'), s);
  }
});

test('a resume start that showed a changed block leaves the next prompt the full block (the provider may not have handed the start to the model), then the line', () => {
  const a = agent('claude', randomUUID());
  const p = dirty(a);
  // Another surface publishes while this agent is away; DIRTY, so the prompts write nothing.
  publishFrom(a.w, p, 'Goal: say it once\nNext: picked up elsewhere', 'DIRTY');
  const s = a.event('start', { source: 'resume' });
  assert.ok(isFull(s), s);
  assert.deepEqual([fields(s).STATUS, fields(s).REVISION], ['DIRTY', '4']);
  const p1 = a.event('prompt');
  assert.ok(isFull(p1), `the prompt after a resume that changed the block says it in full: ${p1}`);
  assert.deepEqual([fields(p1).STATUS, fields(p1).REVISION], ['DIRTY', '4']);
  assert.ok(p1.includes('Next: picked up elsewhere'));
  assertShort(a.event('prompt'), p1);
  // A resume with nothing changed since is taken as seen: the next prompt is the line.
  const s2 = a.event('start', { source: 'resume' });
  assert.ok(isFull(s2), s2);
  assertShort(a.event('prompt'), s2);
});

test('a changed block at any other start (startup, compact, a new source) is taken as seen: the next prompt is the line', () => {
  for (const source of ['startup', 'compact', 'something-new']) {
    const a = agent('claude', randomUUID());
    const p = dirty(a);
    publishFrom(a.w, p, `Goal: say it once\nNext: changed before ${source}`, 'DIRTY');
    const s = a.event('start', { source });
    assert.ok(isFull(s), `${source}: ${s}`);
    assert.equal(fields(s).REVISION, '4');
    assertShort(a.event('prompt'), s);
  }
});

test('a second provider session on the same named session gets its own full block; each remembers its own', () => {
  const w = world();
  const env = { BATON_SESSION: 'shared-task' };
  const one = agent('claude', randomUUID(), w, env);
  const two = agent('claude', randomUUID(), w, env);
  one.event('start');
  const p1 = one.event('prompt');
  assertShort(one.event('prompt'), p1);
  // Never shown a block (its start did not run): the full block, though nothing changed.
  const q1 = two.event('prompt');
  assert.ok(isFull(q1), q1);
  assert.equal(fields(q1).REVISION, fields(p1).REVISION);
  assertShort(two.event('prompt'), q1);
  assertShort(one.event('prompt'), p1);
  const shown = fs.readdirSync(join(w.store, 'sessions', 'shared-task', '.shown')).sort();
  assert.equal(shown.length, 2);
  assert.ok(shown.every((n) => n.startsWith('claude.') && n.endsWith('.json')));
});

test('an unreadable memory of what was shown means never shown: the full block again, then short', () => {
  const sid = randomUUID();
  const a = agent('claude', sid);
  const p1 = dirty(a);
  assertShort(a.event('prompt'), p1);
  const dir = join(a.w.store, 'sessions', sid, '.shown');
  const [file] = fs.readdirSync(dir);
  fs.writeFileSync(join(dir, file), '{"torn');
  assert.equal(ageless(a.event('prompt')), ageless(p1));
  assertShort(a.event('prompt'), p1);
});

test('the NEXT_ACTION changing with age alone (no write) brings the full block back', () => {
  const sid = randomUUID();
  const a = agent('claude', sid);
  const p = dirty(a);
  assert.equal(fields(p).NEXT_ACTION, 'MERGE_THEN_REPUBLISH');
  assertShort(a.event('prompt'), p);
  // Age the DIRTY mark by 11 minutes: NEXT_ACTION becomes REPUBLISH_THEN_CONTINUE.
  const state = join(a.w.store, 'sessions', sid, 'state.json');
  const s = JSON.parse(fs.readFileSync(state, 'utf8'));
  s.updated_at = new Date(Date.now() - 11 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  fs.writeFileSync(state, `${JSON.stringify(s)}\n`);
  const aged = a.event('prompt');
  assert.ok(isFull(aged), aged);
  assert.equal(fields(aged).NEXT_ACTION, 'REPUBLISH_THEN_CONTINUE');
  assertShort(a.event('prompt'), aged);
});

test('refs: a ref captured or gone stale since the last full block brings it back with the refs; otherwise the prompt block carries none', () => {
  const w = world();
  const ok = (args: string[]) => {
    const r = baton(args, { env: w.env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  };
  ok(['session', 'new', 'Source', '--id', 'src-a']);
  ok(['session', 'append', 'src-a', '--text', 'the build is green']);
  const sid = randomUUID();
  const a = agent('claude', sid, w);
  a.event('start');
  const p1 = a.event('prompt');
  assert.ok(!p1.includes('<session-ref'));
  assertShort(a.event('prompt'), p1);

  ok(['ref', 'capture', '--from', 'src-a', '--into', sid]);
  const withRef = a.event('prompt');
  assert.ok(isFull(withRef));
  assert.match(withRef, /<session-ref source="src-a" state="fresh" [^>]*digest="[0-9a-f]+">/);
  assertShort(a.event('prompt'), p1);

  ok(['session', 'append', 'src-a', '--text', 'the build broke']);
  const stale = a.event('prompt');
  assert.match(stale, /<session-ref source="src-a" state="stale" [^>]*digest="[0-9a-f]+">/);
  assertShort(a.event('prompt'), p1);

  // A pointer change with the refs as shown: the full block without the refs again.
  publishFrom(w, p1, 'Goal: refs\nNext: once');
  const p2 = a.event('prompt');
  assert.equal(fields(p2).STATUS, 'DIRTY');
  assert.ok(!p2.includes('<session-ref'), p2);
});

test('BATON_VERIFY=1 neither reads nor writes the memory: the full block, nothing on disk', () => {
  const sid = randomUUID();
  const a = agent('claude', sid);
  const p1 = dirty(a);
  const dir = join(a.w.store, 'sessions', sid, '.shown');
  const before = fs.readdirSync(dir).map((n) => fs.readFileSync(join(dir, n), 'utf8'));
  const out = runProviderEvent({
    provider: 'claude',
    settingsFiles: PROVIDERS.claude.settings(a.w),
    payload: { ...JSON.parse(fs.readFileSync(join(FIXTURES, 'claude', 'UserPromptSubmit.json'), 'utf8')), session_id: sid, cwd: a.w.project },
    projectDir: a.w.project,
    env: { ...a.w.env, BATON_VERIFY: '1' },
  });
  assert.equal(ageless(out.contexts[0]), ageless(p1));
  assert.deepEqual(
    fs.readdirSync(dir).map((n) => fs.readFileSync(join(dir, n), 'utf8')),
    before,
  );
  assertShort(a.event('prompt'), p1);
});
