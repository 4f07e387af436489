// The pointer's rules, pure (no I/O; time and randomness come in as parameters):
// the CAS comparison, the next state of a write, what each hook event writes, and the
// decision fields of the injected context (age, identical-text streak, NEXT_ACTION).
import { isoSeconds } from '../core/time.ts';
import type { JournalRecord } from './journal.ts';
import type { Observed, PointerState, PointerStatus } from './state.ts';

export type CasResult = { ok: true } | { ok: false; code: 'STALE_GENERATION' | 'STALE_REVISION' };

/** Generation first, then revision (pointer.md): a request from before a clear is STALE_GENERATION. */
export function compareCas(current: Observed, expectedGeneration: string, expectedRevision: number): CasResult {
  if (current.generation !== expectedGeneration) return { ok: false, code: 'STALE_GENERATION' };
  if (current.revision !== expectedRevision) return { ok: false, code: 'STALE_REVISION' };
  return { ok: true };
}

export interface Target {
  status: PointerStatus;
  task_id: string | null;
  pointer_text: string | null;
}

/**
 * The state a successful write leaves: revision + 1; a new generation for a first write,
 * an upgrade from v2 and every clear (the ABA fence); otherwise the current generation.
 */
export function nextState(current: Observed, target: Target, now: Date, newGeneration: () => string): PointerState {
  const fresh = current.schema !== 3 || target.status === 'CLEARED';
  const cleared = target.status === 'CLEARED';
  return {
    schema_version: 3,
    session_id: current.session_id,
    generation: fresh ? newGeneration() : current.generation,
    revision: current.revision + 1,
    status: target.status,
    task_id: cleared ? null : target.task_id,
    pointer_text: cleared ? null : target.pointer_text,
    updated_at: isoSeconds(now),
  };
}

/**
 * What UserPromptSubmit writes, or null for a no-op: CLEAN → DIRTY; DIRTY and CLEARED stay
 * (no write, no journal line); absent → the CLEARED fence; a v2 state → its first v3 write.
 */
export function promptTarget(current: Observed): Target | null {
  if (current.schema === 0) return { status: 'CLEARED', task_id: null, pointer_text: null };
  const keep = { task_id: current.task_id, pointer_text: current.pointer_text };
  if (current.schema === 2) {
    if (current.status === 'CLEARED') return { status: 'CLEARED', task_id: null, pointer_text: null };
    return { status: 'DIRTY', ...keep };
  }
  if (current.status === 'CLEAN') return { status: 'DIRTY', ...keep };
  return null;
}

export const CLEARED_TARGET: Target = { status: 'CLEARED', task_id: null, pointer_text: null };

/** Whole seconds since updated_at; -1 when it cannot be parsed; never negative otherwise. */
export function pointerAgeSeconds(updatedAt: string | null, now: Date): number {
  const t = updatedAt ? Date.parse(updatedAt) : Number.NaN;
  if (!Number.isFinite(t)) return -1;
  return Math.max(0, Math.floor((now.getTime() - t) / 1000));
}

/**
 * Over the journal's PUBLISH records with status CLEAN, newest first: how many in a row
 * carry the newest one's digest. The hook's DIRTY marks are skipped (not the agent publishing).
 */
export function identicalTextStreak(records: readonly JournalRecord[]): number {
  let digest: string | null | undefined;
  let streak = 0;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.event !== 'PUBLISH' || r.status !== 'CLEAN') continue;
    if (digest === undefined) digest = r.pointer_digest;
    if (r.pointer_digest !== digest) break;
    streak++;
  }
  return streak;
}

export const STALE_AGE_SECONDS = 600;
export const STREAK_LIMIT = 3;

export type NextAction = 'REPUBLISH_THEN_CONTINUE' | 'REPUBLISH_WITH_NEW_NEXT_STEP' | 'MERGE_THEN_REPUBLISH' | 'CONTINUE';

/** The first rule that holds (pointer.md); advice, not a constraint. */
export function nextAction(status: PointerStatus | null, ageSeconds: number, streak: number): NextAction {
  if (status !== 'DIRTY') return 'CONTINUE';
  if (ageSeconds >= STALE_AGE_SECONDS) return 'REPUBLISH_THEN_CONTINUE';
  if (streak >= STREAK_LIMIT) return 'REPUBLISH_WITH_NEW_NEXT_STEP';
  return 'MERGE_THEN_REPUBLISH';
}
