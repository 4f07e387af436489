// The hook dispatcher (hooks.md, "One entry per event, three aspects inside"): parses the
// provider's payload leniently, picks the session, runs the enabled aspects in isolation
// and shapes the pointer's result into the provider's output. Pure of process state: the
// caller passes stdin, the environment and the clock, and writes what comes back.
// Only `pointer` decides stdout and the exit code; a failure in `session` or `prompt` is one
// stderr line. Under BATON_VERIFY=1 nothing is written anywhere: the hook reports on stderr,
// as one JSON line, what it would have written.
import { errnoError, isBatonError } from '../core/errors.ts';
import { isValidSessionId } from '../core/ids.ts';
import { isoMillis } from '../core/time.ts';
import { type PointerHookResult, pointerAspect } from '../pointer/hook.ts';
import { PROVIDER_NAMES, findProvider } from '../providers/index.ts';
import { ASPECTS, type Aspect, type HookEvent, type HookKind, type HookOutput, type ProviderAdapter, mapPayload, outcomeOf } from '../providers/types.ts';
import { contextRefs, renderRefsForContext } from '../store/refs.ts';
import { type OwnershipMarker, readMarker } from '../store/replica.ts';
import { FsStore, type Writer } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { findOpen, loadEpisodes, queuePrompt } from './episodes.ts';
import { HANDOFF_ENV, handoffAtStart } from './handoff.ts';
import { recordLastRuns } from './lastrun.ts';
import { promptPayload, titleFromPrompt } from './prompt.ts';
import { sessionAtEnd, sessionAtStart } from './session.ts';
import type { transcriptAspect } from './transcript.ts';
import { transcriptMayHaveNew } from '../transcripts/cursor-file.ts';

export interface HookInvocation {
  provider: string;
  aspects: readonly Aspect[];
  input: string;
  env: NodeJS.ProcessEnv;
  home: string;
  now: Date;
  /** The exact command line that publishes a pointer (PUBLISHER=). */
  publisherCommand: string;
  /** The process's working directory, asked only when a session is made and the payload names none. */
  cwd: () => string;
  /**
   * The transcript aspect, loaded only when an event needs it: the hook bundle keeps the
   * readers and the capture engine in their own bundle (dist/hook-transcript.cjs), so a
   * prompt never loads them. Absent: the aspect does nothing.
   */
  transcript?: () => typeof transcriptAspect;
}

/** Parses `--aspects a,b` (unknown names reported, not fatal). */
export function parseAspects(list: string | undefined): { aspects: Aspect[]; unknown: string[] } {
  if (list === undefined || list.trim() === '') return { aspects: [...ASPECTS], unknown: [] };
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const aspects = ASPECTS.filter((a) => names.includes(a));
  return { aspects, unknown: names.filter((n) => !(ASPECTS as readonly string[]).includes(n)) };
}

const codeOf = (e: unknown): string => (isBatonError(e) ? e.code : ((e as NodeJS.ErrnoException)?.code ?? 'INTERNAL'));
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0];
// A filesystem error the store did not code itself (a short write on a full disk) says its baton code (WS206…), as the CLI does.
export const aspectLine = (aspect: string, e0: unknown): string => {
  const e = errnoError(e0) ?? e0;
  return `baton: hook ${aspect}: ${codeOf(e)} ${messageOf(e)}`;
};

export function hookWriter(provider: string, providerSessionId: string, actor: Writer['actor'] = 'system'): Writer {
  return { surface: `hook:${provider}`, instanceId: `hook:${provider}:${providerSessionId}`, actor };
}

/** `<provider> <short id>`: the title of a session a hook creates before any prompt. */
export function defaultTitle(provider: string, providerSessionId: string): string {
  return `${provider} ${providerSessionId.slice(0, 8)}`;
}

/**
 * A hook's output, and whether the event (of `kind`) reached the store (false: refused at the
 * edge, or a BATON_VERIFY dry run). `defer`: run the transcript capture again in a detached
 * process once the agent has let go of its transcript (main.ts spawns it).
 */
export type HookRun = HookOutput & { stored: boolean; kind?: HookKind; defer?: boolean };

/** Set in the detached capture's environment (main.ts): wait for the agent to let go of its transcript, then capture. */
export const DEFERRED_ENV = 'BATON_CAPTURE_DEFERRED';
/** How long the detached capture waits for the agent to let go, ms; then it captures what is there. */
export const DEFER_MAX_MS = 30_000;

/** Waits (blocking: the detached run has nothing else to do) until `settled()` or `maxMs` passed. */
function waitFor(settled: () => boolean, maxMs: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + maxMs;
  while (!settled() && Date.now() < until) Atomics.wait(cell, 0, 0, 100);
}

export function runHook(inv: HookInvocation): HookRun {
  const adapter = findProvider(inv.provider);
  if (!adapter) return refuse(`baton: hook: USAGE unknown provider ${JSON.stringify(inv.provider)} (known: ${PROVIDER_NAMES.join(', ')})`);
  let raw: unknown;
  try {
    raw = JSON.parse(inv.input);
  } catch {
    return refuse(`baton: hook ${adapter.name}: HK001 the payload on stdin is not JSON; nothing done`);
  }
  // A payload the adapter knows is not an event of baton's (Qwen's tool-result continuation): nothing to do, nothing said.
  if (adapter.ignore?.(raw)) return { stdout: '', stderr: [], exitCode: 0, stored: false };
  const ev = mapPayload(adapter, raw, inv.env);
  if ('error' in ev) return refuse(`baton: hook ${adapter.name}: HK001 ${ev.error}; nothing done`);
  const sessionId = inv.env.BATON_SESSION || ev.providerSessionId;
  if (!isValidSessionId(sessionId)) {
    return refuse(`baton: hook ${adapter.name}: WS003 session id ${JSON.stringify(sessionId)} does not match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$; nothing done`);
  }
  const enabled = (a: Aspect): boolean => inv.aspects.includes(a);
  if (inv.env.BATON_VERIFY === '1') return verifyRun(inv, adapter, ev, sessionId);

  const store = new FsStore(inv.home);
  // A read-only replica of a team session (docs/team.md): one stat when not shared.
  const replica = readMarker(store.dir(sessionId));
  if (replica && replica.owner !== replica.machine) return replicaRun(adapter, ev, sessionId, replica);
  const writer = hookWriter(adapter.name, ev.providerSessionId);
  const stderr: string[] = [];
  const runs: { aspect: string; event: string; result: string }[] = [];

  // The session a hook names is created when missing: at start (title `<provider> <short id>`)
  // or at the first prompt (title: its first line). The end event never creates one.
  const writesAtEvent =
    (ev.kind === 'start' && (enabled('session') || enabled('pointer'))) ||
    (ev.kind === 'prompt' && (enabled('prompt') || enabled('pointer'))) ||
    (ev.kind === 'turn-end' && enabled('transcript'));
  if (writesAtEvent && !store.exists(sessionId)) {
    try {
      store.ensure(sessionId, {
        title: (ev.kind === 'prompt' && titleFromPrompt(ev.prompt ?? '')) || defaultTitle(adapter.name, ev.providerSessionId),
        workspace: describeWorkspace(ev.cwd ?? inv.cwd()),
        writer,
        createdBy: `hook:${adapter.name}`,
      });
    } catch (e) {
      stderr.push(aspectLine('session', e));
    }
  }

  // The prompt archive rides along with the pointer's DIRTY write (one write, one fsync for
  // both); what is still queued after the pointer aspect is flushed on its own below.
  let promptQueued = false;
  const promptWriter = hookWriter(adapter.name, ev.providerSessionId, 'user');
  if (enabled('prompt') && ev.kind === 'prompt') {
    try {
      queuePrompt(store, sessionId, adapter.name, ev.providerSessionId, promptPayload(ev.prompt ?? ''), promptWriter, {
        from: defaultTitle(adapter.name, ev.providerSessionId),
        to: () => titleFromPrompt(ev.prompt ?? ''),
      });
      promptQueued = true;
    } catch (e) {
      stderr.push(aspectLine('prompt', e));
      runs.push({ aspect: 'prompt', event: ev.providerEvent, result: `error ${codeOf(e)}` });
    }
  }

  let res: PointerHookResult = {};
  const refs = contextRefs(store, sessionId, inv.now);
  if (enabled('pointer') && ev.kind !== 'end' && ev.kind !== 'turn-end') {
    try {
      res = pointerAspect(store, sessionId, pointerEvent(ev), {
        now: inv.now,
        publisherCommand: inv.publisherCommand,
        renderRefs: refs.render,
        refsShown: refs.shown,
        // Said once: each provider session is one viewer of the block (docs/pointer.md).
        viewer: `${adapter.name}.${ev.providerSessionId}`,
        writer,
      });
      runs.push({ aspect: 'pointer', event: ev.providerEvent, result: res.block || res.stop || res.failure ? 'refused' : 'ok' });
    } catch (e) {
      // An unexpected failure of the pointer aspect never breaks the agent: say why, go on.
      stderr.push(aspectLine('pointer', e));
      runs.push({ aspect: 'pointer', event: ev.providerEvent, result: `error ${codeOf(e)}` });
      res = {};
    }
  }
  // `baton continue --in` started this agent: its first start gets the handoff block after the
  // pointer block, once (src/hooks/handoff.ts); the session aspect freezes it with the rest.
  const handoff = inv.env[HANDOFF_ENV];
  if (handoff && ev.kind === 'start' && !res.block && !res.stop && !res.failure && store.exists(sessionId)) {
    try {
      const block = handoffAtStart({ sessionDir: store.dir(sessionId), sessionId, agent: adapter.name, providerSessionId: ev.providerSessionId, value: handoff, refs: refs.now, now: inv.now });
      if (block) res = { ...res, context: res.context ? `${res.context.endsWith('\n') ? res.context : `${res.context}\n`}${block}` : block };
    } catch (e) {
      stderr.push(aspectLine('handoff', e));
    }
  }
  const out = adapter.shape(ev, res);

  // Before the session aspect: at the end, the last items belong inside the episode they close.
  // At a start, the catch-up is skipped without loading the capture bundle when the transcript
  // the payload names is missing, empty, or just as the cursor last saw it, and when the payload
  // carries no items (opencode's and Kilo's plugin sends them at a resume).
  const catchUp =
    ev.kind !== 'start' ||
    Array.isArray(ev.payload?.transcript_items) ||
    (ev.transcriptPath !== null && transcriptMayHaveNew(store.dir(sessionId), adapter.name, ev.providerSessionId, ev.transcriptPath));
  if (enabled('transcript') && ev.kind !== 'prompt' && catchUp && inv.transcript && store.exists(sessionId)) {
    const deferred = inv.env[DEFERRED_ENV] === '1';
    const event = deferred ? `${ev.providerEvent} deferred` : ev.providerEvent;
    try {
      const settled = adapter.transcriptSettled;
      if (deferred && settled) waitFor(() => settled(ev, inv.env), DEFER_MAX_MS);
      const run = inv.transcript()({ store, sessionId, adapter, ev, writer: hookWriter(adapter.name, ev.providerSessionId, 'agent'), now: inv.now, env: inv.env });
      stderr.push(...run.lines);
      if (run.result) runs.push({ aspect: 'transcript', event, result: run.result.refused ? `refused ${run.result.refused.code}` : `ok ${run.result.appended}` });
    } catch (e) {
      stderr.push(aspectLine('transcript', e));
      runs.push({ aspect: 'transcript', event, result: `error ${codeOf(e)}` });
    }
  }

  if (enabled('session') && (ev.kind === 'start' || ev.kind === 'end')) {
    try {
      const injected = out.stdout && res.context ? res.context : '';
      if (ev.kind === 'start') {
        sessionAtStart({
          store,
          sessionId,
          adapter,
          ev,
          writer,
          now: inv.now,
          injected,
          injectedNote: enabled('pointer') ? 'the pointer aspect gave no context' : 'the pointer aspect is not enabled',
        });
      } else sessionAtEnd({ store, sessionId, adapter, ev, writer, now: inv.now, injected: '' });
      runs.push({ aspect: 'session', event: ev.providerEvent, result: 'ok' });
    } catch (e) {
      stderr.push(aspectLine('session', e));
      runs.push({ aspect: 'session', event: ev.providerEvent, result: `error ${codeOf(e)}` });
    }
  }

  if (promptQueued) {
    // Whatever the pointer aspect did not carry (a DIRTY no-op, a refusal) is written now.
    try {
      store.flushRiders(sessionId, promptWriter);
      runs.push({ aspect: 'prompt', event: ev.providerEvent, result: 'ok' });
    } catch (e) {
      stderr.push(aspectLine('prompt', e));
      runs.push({ aspect: 'prompt', event: ev.providerEvent, result: `error ${codeOf(e)}` });
    }
  }

  recordLastRuns(inv.home, adapter.name, runs, isoMillis(inv.now));
  // An agent that writes its transcript as it exits: what this end could not see yet is captured
  // by a detached run once the agent has let go (the agent is never kept waiting).
  const defer = ev.kind === 'end' && enabled('transcript') && !!inv.transcript && !!adapter.transcriptSettled && inv.env[DEFERRED_ENV] !== '1' && !adapter.transcriptSettled(ev, inv.env);
  return { stdout: out.stdout, stderr: [...stderr, ...out.stderr], exitCode: out.exitCode, stored: true, kind: ev.kind, ...(defer ? { defer } : {}) };
}

/**
 * On a machine that does not own a shared session the hook writes nothing (WS105) and exits
 * 0; the context it gives tells the agent the session is owned elsewhere and how to take it over.
 */
function replicaRun(adapter: ProviderAdapter, ev: HookEvent, sessionId: string, m: OwnershipMarker): HookRun {
  const owner = m.owner ?? 'nobody (released)';
  const context = [
    'BATON_TEAM_REPLICA',
    `Session ${sessionId} is owned by ${owner} since ${m.since}; this machine (${m.machine}) holds a read-only replica, so nothing of this turn is recorded.`,
    `To continue here, run: baton team take ${sessionId}${m.owner ? ` (or --steal if ${m.owner} is unreachable)` : ''}`,
  ].join('\n');
  const out = adapter.shape(ev, { context });
  const line = `baton: hook ${adapter.name}: WS105 session ${sessionId} owned by ${owner} since ${m.since}; nothing written (baton team take ${sessionId})`;
  return { stdout: out.stdout, stderr: [line, ...out.stderr], exitCode: 0, stored: false };
}

function refuse(line: string): HookRun {
  return { stdout: '', stderr: [line], exitCode: 0, stored: false };
}

function pointerEvent(ev: HookEvent): Parameters<typeof pointerAspect>[2] {
  if (ev.kind === 'prompt') return { kind: 'prompt' };
  if (ev.kind === 'pre-compact') return { kind: 'pre-compact', trigger: ev.trigger ?? '' };
  return { kind: 'start', source: ev.source ?? 'startup' };
}

/**
 * BATON_VERIFY=1: everything up to the writes runs as for a real event (adapter, payload,
 * session choice, reading the store, the pointer aspect in its dry-run mode, shaping its
 * output); then one JSON line on stderr says what would have been written. Nothing is written.
 */
function verifyRun(inv: HookInvocation, adapter: ProviderAdapter, ev: HookEvent, sessionId: string): HookRun {
  const store = new FsStore(inv.home);
  const exists = store.exists(sessionId);
  const dir = store.dir(sessionId);
  const open = exists ? findOpen(loadEpisodes(dir), adapter.name, ev.providerSessionId) : undefined;
  const would: Record<string, unknown>[] = [];
  const on = (a: Aspect): boolean => inv.aspects.includes(a);
  if (!exists && ((ev.kind === 'start' && (on('session') || on('pointer'))) || (ev.kind === 'prompt' && (on('prompt') || on('pointer'))))) {
    would.push({ aspect: 'session', write: 'session.created', session: sessionId });
  }
  let res: PointerHookResult = {};
  if (on('pointer') && ev.kind !== 'end' && ev.kind !== 'turn-end') {
    try {
      // The pointer aspect's own dry run: it reads and decides, writes nothing, takes no mutex.
      res = pointerAspect(store, sessionId, pointerEvent(ev), {
        now: inv.now,
        publisherCommand: inv.publisherCommand,
        renderRefs: (budget) => renderRefsForContext(store, sessionId, budget, inv.now),
        writer: hookWriter(adapter.name, ev.providerSessionId),
        dryRun: true,
      });
      for (const st of res.planned ?? []) would.push({ aspect: 'pointer', write: 'state.json', status: st.status, revision: st.revision, generation: st.generation });
    } catch (e) {
      res = { context: `BATON_VERIFY=1\nPOINTER_ERROR=${codeOf(e)}` };
    }
    delete res.planned;
  }
  if (on('session') && ev.kind === 'start' && !open) would.push({ aspect: 'session', write: 'episode.opened', context_file: 'contexts/<stamp>--<episode>.md' });
  if (on('session') && ev.kind === 'end' && open) {
    would.push({ aspect: 'session', write: 'episode.closed', episode: open.episode, reason: ev.reason, outcome: outcomeOf(adapter, ev.reason ?? 'other') });
  }
  if (on('prompt') && ev.kind === 'prompt') would.push({ aspect: 'prompt', write: 'prompt.submitted', episode: open?.episode ?? null });
  const out = adapter.shape(ev, res);
  const report = {
    baton_verify: { provider: adapter.name, event: ev.providerEvent, kind: ev.kind, session: sessionId, session_exists: exists, aspects: inv.aspects, home: inv.home, would_write: would },
  };
  return { stdout: out.stdout, stderr: [JSON.stringify(report)], exitCode: out.exitCode, stored: false };
}
