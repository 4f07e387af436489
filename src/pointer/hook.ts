// The pointer aspect of the hook (pointer.md, "The three hook events"), provider-neutral.
// The dispatcher (src/hooks) has ensured the session exists; it turns the result into the
// provider's output: `context` → injected context, `block` → the prompt's block decision
// (stderr `TASK_POINTER_V2:<CODE>`, exit 2), `stop` → stop continuing, `failure` → an
// ordinary hook failure. Writes go through the same CAS commit as the publisher, under the
// session mutex. Lean: this runs on every prompt (no zod, commander, SQLite, jsonc-parser).
// Said once: given a `viewer` (the provider session), a prompt whose block would repeat what
// that viewer was last shown gets one short line instead (shown.ts, docs/pointer.md).
import type { StoredEvent } from '../core/events.ts';
import { readFileBytes } from '../store/fsutil.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { type WriteSource, commitUnderMutex, pointerError } from './cas.ts';
import { BOOTSTRAP_MARKER, type Decision, MARKER, RECOVERY_REQUIRED, appendRefs, decisionOf, hasPointer, renderPointerBlock, renderUnchanged, renderUnknownRecovery } from './context.ts';
import { type JournalRecord, readJournal, readJournalTail } from './journal.ts';
import { CLEARED_TARGET, type Target, identicalTextStreak, nextState, promptTarget } from './rules.ts';
import { type Shown, forgetShown, readShown, rememberShown, samePointer } from './shown.ts';
import { type Observed, type PointerState, type RandomBytes, newGeneration, newTaskId, observedOf, parseState, readState, statePath, systemRandom } from './state.ts';

export type PointerHookEvent =
  | { kind: 'prompt' }
  | { kind: 'pre-compact'; trigger: string }
  | { kind: 'start'; source: string };

export interface PointerHookOptions {
  now: Date;
  /** The exact command line that publishes, for PUBLISHER=. */
  publisherCommand: string;
  /** Rendered refs appended after the pointer block at start (refs.md); given the bytes left. */
  renderRefs?: (budgetBytes: number) => string;
  /**
   * Who is shown the block: `<provider>.<provider session id>`. With it, what each full block
   * showed is remembered, and a prompt that would repeat it gets one short line instead; a
   * prompt's full block then carries the refs when they changed. Without it (and in a dry
   * run) every prompt gets the full block without refs and nothing is remembered.
   */
  viewer?: string;
  /** The refs as renderRefs would show them now: `source digest state` per ref (asked only with a viewer). */
  refsShown?: () => string;
  /** Who writes the pointer.* events; default `hook:unknown` (the dispatcher passes `hook:<provider>`). */
  writer?: Writer;
  /** Randomness for new generations and the bootstrap example's task id (tests inject it). */
  randomBytes?: RandomBytes;
  /** BATON_VERIFY=1: read and decide but write nothing (no mutex either); `planned` says what would be written. */
  dryRun?: boolean;
}

export interface PointerHookResult {
  /** The context block to inject (TASK_POINTER_V2 / _BOOTSTRAP / UNKNOWN_RECOVERY ...), if any. */
  context?: string;
  /** The one blocking case: the prompt's DIRTY write failed. */
  block?: { code: string; reason: string };
  /** clear/compact recovery failed: the provider must stop. */
  stop?: { code: string; reason: string };
  /** PreCompact input errors: an ordinary hook failure (non-zero, not 2). */
  failure?: { code: string; message: string };
  /** Dry run only: the state writes this event would have made. */
  planned?: PointerState[];
}

export const PRE_COMPACT_TRIGGERS = ['manual', 'auto'];

export function pointerAspect(store: FsStore, sessionId: string, event: PointerHookEvent, opts: PointerHookOptions): PointerHookResult {
  switch (event.kind) {
    case 'prompt':
      return onPrompt(store, sessionId, opts);
    case 'start':
      return onStart(store, sessionId, event.source, opts);
    case 'pre-compact':
      // The pointer was persisted when it was published: nothing to write here.
      if (!PRE_COMPACT_TRIGGERS.includes(event.trigger)) {
        return { failure: { code: 'INVALID_HOOK_INPUT', message: `PreCompact trigger must be manual or auto, got ${JSON.stringify(event.trigger)}` } };
      }
      // The provider is about to drop context: what this viewer was shown may go with it.
      if (remembers(opts)) forgetShown(memoryDir(store, sessionId), opts.viewer);
      return {};
    default:
      return { failure: { code: 'INVALID_HOOK_INPUT', message: `unknown pointer hook event ${JSON.stringify((event as { kind: unknown }).kind)}` } };
  }
}

interface Applied {
  observed: Observed;
  events: StoredEvent[];
  planned: PointerState[];
}

/** Re-reads under the mutex, decides with `decide`, commits; a dry run only reads. */
function apply(store: FsStore, id: string, opts: PointerHookOptions, source: WriteSource, decide: (cur: Observed) => Target | null): Applied {
  const dir = store.dir(id);
  const random = opts.randomBytes ?? systemRandom;
  const gen = () => newGeneration(random);
  if (opts.dryRun) {
    const cur = readState(dir, id);
    const target = decide(cur);
    if (!target) return { observed: cur, events: [], planned: [] };
    const next = nextState(cur, target, opts.now, gen);
    return { observed: observedOf(next), events: [], planned: [next] };
  }
  // A no-op (a repeated prompt while DIRTY, the CLEARED fence already there) is decided on
  // a plain read and takes no mutex: it must write nothing, not even a lock file, so it
  // works on a read-only store. The state file is replaced by rename, so the read is whole.
  const pre = readState(dir, id);
  if (!decide(pre)) return { observed: pre, events: [], planned: [] };
  const writer = opts.writer ?? { surface: 'hook:unknown', instanceId: `hook:unknown:${id}`, actor: 'system' };
  const r = store.locked(id, (): Applied => {
    const cur = rereadState(dir, id, pre);
    const target = decide(cur);
    if (!target) return { observed: cur, events: [], planned: [] };
    const c = commitUnderMutex(store, cur, nextState(cur, target, opts.now, gen), writer, source, opts.now);
    return { observed: observedOf(c.state, c.raw), events: c.events, planned: [] };
  });
  store.afterAppend(id, r.events);
  return r;
}

/** The state under the mutex: the plain read's parse again when the bytes are the same (parseState is a function of them). */
function rereadState(dir: string, id: string, before: Observed): Observed {
  if (before.raw) {
    try {
      const raw = readFileBytes(statePath(dir));
      return raw.equals(before.raw) ? before : parseState(raw, id);
    } catch {
      // Gone, unreadable or corrupt: readState says which, as it always has.
    }
  }
  return readState(dir, id);
}

/** Tails of the journal tried in turn: a streak usually ends within the last few records. */
const JOURNAL_TAILS = [4096, 65536];

/** The records the DIRTY decision fields need: the journal's last 4 KiB, more (up to the whole file) only while the streak runs through what was read. */
function journalOf(store: FsStore, id: string, o: Observed): JournalRecord[] {
  if (o.status !== 'DIRTY') return [];
  try {
    for (const bytes of JOURNAL_TAILS) {
      const tail = readJournalTail(store.dir(id), bytes);
      const published = tail.records.filter((r) => r.event === 'PUBLISH' && r.status === 'CLEAN').length;
      if (tail.complete || identicalTextStreak(tail.records) < published) return tail.records;
    }
    return readJournal(store.dir(id)).records.map((r) => r.record);
  } catch {
    return [];
  }
}

interface Block {
  decision: Decision;
  /** Renders the block; only when it is shown (the bootstrap draws a fresh task id). */
  text: () => string;
}

function block(store: FsStore, id: string, o: Observed, opts: PointerHookOptions): Block {
  const journal = journalOf(store, id, o);
  const decision = decisionOf(o, opts.now, journal);
  const text = (): string =>
    renderPointerBlock(
      {
        observed: o,
        publisherCommand: opts.publisherCommand,
        now: opts.now,
        journal,
        exampleTaskId: () => newTaskId(opts.randomBytes ?? systemRandom),
      },
      decision,
    );
  return { decision, text };
}

/** Whether this event remembers what it shows (a viewer is named and this is no dry run). */
const remembers = (opts: PointerHookOptions): opts is PointerHookOptions & { viewer: string } => !!opts.viewer && !opts.dryRun;

function refsNowShown(opts: PointerHookOptions): string {
  try {
    return opts.refsShown?.() ?? '';
  } catch {
    return '';
  }
}

function viewOf(o: Observed, action: string, opts: PointerHookOptions, refs: string): Shown {
  return {
    session_id: o.session_id,
    marker: hasPointer(o) ? MARKER : BOOTSTRAP_MARKER,
    status: o.status ?? o.generation,
    generation: o.generation,
    revision: o.revision,
    next_action: action,
    publisher: opts.publisherCommand,
    refs,
  };
}

/**
 * A start's block, in full with refs; remembered as what this viewer was shown. A resume start
 * whose block is not what the viewer was last shown is remembered as unconfirmed: a provider
 * may go on without waiting for a resume start's context (Claude Code in print mode does), so
 * the model may not have it when the next prompt comes, and that prompt gives the block in
 * full again instead of a line standing for a block the model never saw (docs/adr/0094).
 */
function startContext(store: FsStore, id: string, o: Observed, opts: PointerHookOptions, source: string): string {
  const r = block(store, id, o, opts);
  if (remembers(opts)) {
    const dir = memoryDir(store, id);
    const now = viewOf(o, r.decision.action, opts, refsNowShown(opts));
    if (source === 'resume' && dir !== null) {
      const before = readShown(dir, opts.viewer);
      if (before === null || before.unconfirmed || before.refs !== now.refs || !samePointer(before, now)) now.unconfirmed = true;
    }
    rememberShown(dir, opts.viewer, now);
  }
  return appendRefs(r.text(), opts.renderRefs);
}

/**
 * The session folder the said-once memory is kept in, or null when the folder (or sessions/)
 * is a link planted in the store (WS010): then nothing is remembered and the full block is said.
 */
function memoryDir(store: FsStore, id: string): string | null {
  try {
    return store.writeDir(id);
  } catch {
    return null;
  }
}

/**
 * A prompt's context: the short line when the pointer and the refs are what this viewer was
 * last shown; else the full block (with the refs when they are not what was shown), remembered.
 */
function promptContext(store: FsStore, id: string, o: Observed, opts: PointerHookOptions): string {
  const r = block(store, id, o, opts);
  if (!remembers(opts)) return r.text();
  const dir = memoryDir(store, id);
  if (dir === null) return r.text();
  const now = viewOf(o, r.decision.action, opts, refsNowShown(opts));
  const before = readShown(dir, opts.viewer);
  // After an unconfirmed start the model may have seen neither the block nor its refs.
  const refsSame = before !== null && before.refs === now.refs && !before.unconfirmed;
  if (refsSame && samePointer(before, now)) return renderUnchanged(o, r.decision.action);
  rememberShown(dir, opts.viewer, now);
  return refsSame ? r.text() : appendRefs(r.text(), opts.renderRefs);
}

function withPlan(r: PointerHookResult, a: Applied, opts: PointerHookOptions): PointerHookResult {
  if (opts.dryRun) r.planned = a.planned;
  return r;
}

function onPrompt(store: FsStore, id: string, opts: PointerHookOptions): PointerHookResult {
  let a: Applied;
  try {
    a = apply(store, id, opts, 'hook:prompt', promptTarget);
  } catch (e) {
    const pe = pointerError(e);
    return {
      block: {
        code: pe.code,
        reason: `TASK_POINTER_V2:${pe.code} the task pointer could not be marked DIRTY (${pe.message}); continuing would lose the mark. Fix it (baton pointer report ${id}) and resend the prompt.`,
      },
    };
  }
  return withPlan({ context: promptContext(store, id, a.observed, opts) }, a, opts);
}

function onStart(store: FsStore, id: string, source: string, opts: PointerHookOptions): PointerHookResult {
  // A start that shows no pointer block leaves nothing for a short line to stand for.
  const forget = (): void => {
    if (remembers(opts)) forgetShown(memoryDir(store, id), opts.viewer);
  };
  const stop = (code: string, message: string): PointerHookResult => {
    forget();
    return {
      stop: {
        code: RECOVERY_REQUIRED,
        reason: `${RECOVERY_REQUIRED}:${code} the task pointer could not be recovered after ${source} (${message}). Run \`baton pointer report ${id}\` and repair it before continuing.`,
      },
    };
  };
  if (source === 'clear') {
    // /clear starts over: a CLEARED state with a new generation fences every older request.
    let a: Applied;
    try {
      a = apply(store, id, opts, 'hook:clear', () => CLEARED_TARGET);
    } catch (e) {
      const pe = pointerError(e);
      return stop(pe.code, pe.message);
    }
    return withPlan({ context: startContext(store, id, a.observed, opts, source) }, a, opts);
  }
  let cur: Observed;
  try {
    cur = readState(store.dir(id), id);
  } catch (e) {
    const pe = pointerError(e);
    forget();
    if (source === 'compact') return stop(pe.code, pe.message);
    return { context: appendRefs(renderUnknownRecovery(pe.code, id, opts.publisherCommand), opts.renderRefs) };
  }
  const r: PointerHookResult = { context: startContext(store, id, cur, opts, source) };
  if (opts.dryRun) r.planned = [];
  return r;
}
