// The context block a hook injects (pointer.md, "The injected context"): pure rendering,
// no I/O. KEY=VALUE lines under a marker line, the pointer text between POINTER_TEXT_BEGIN
// and POINTER_TEXT_END lines, at most MAX_CONTEXT_BYTES in all (refs included).
import type { Observed } from './state.ts';
import { identicalTextStreak, nextAction, pointerAgeSeconds } from './rules.ts';
import type { JournalRecord } from './journal.ts';

export const MAX_CONTEXT_BYTES = 10000;
export const MARKER = 'TASK_POINTER_V2';
export const BOOTSTRAP_MARKER = 'TASK_POINTER_V2_BOOTSTRAP';
export const RECOVERY_REQUIRED = 'TASK_POINTER_RECOVERY_REQUIRED';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

export interface BlockInput {
  observed: Observed;
  publisherCommand: string;
  now: Date;
  /** The journal's records (for the identical-text streak when DIRTY). */
  journal: readonly JournalRecord[];
  /** A fresh task id offered in the bootstrap example request. */
  /** Drawn only when the block has no pointer of its own to show in the example request. */
  exampleTaskId: () => string;
}

export function hasPointer(o: Observed): boolean {
  return o.status === 'CLEAN' || o.status === 'DIRTY';
}

/** The decision fields of a DIRTY block (pointer.md): the pointer's age, the identical-text streak, NEXT_ACTION. */
export interface Decision {
  age: number;
  streak: number;
  action: string;
}

export function decisionOf(o: Observed, now: Date, journal: readonly JournalRecord[]): Decision {
  if (o.status !== 'DIRTY') return { age: 0, streak: 0, action: nextAction(o.status, 0, 0) };
  const age = pointerAgeSeconds(o.updated_at, now);
  const streak = identicalTextStreak(journal);
  return { age, streak, action: nextAction(o.status, age, streak) };
}

// Said once, plainly: what to do now (by status and NEXT_ACTION), then how — the fields
// above carry every value, PUBLISH_REQUEST the request itself.
const HOW = 'pipe PUBLISH_REQUEST into PUBLISHER';
const CAS_HINT = 'A STALE_GENERATION/STALE_REVISION receipt carries the current generation and revision: merge, then retry with them.';
const WHAT: Record<string, string> = {
  BOOTSTRAP: `Publish this session's first task pointer now (the goal and the next concrete step): ${HOW} with your pointer_text; keep its task_id for later publishes.`,
  CONTINUE: `Continue from this pointer. When the goal or the next step changes, ${HOW} with the new pointer_text.`,
  MERGE_THEN_REPUBLISH: `Work happened since this pointer was published: merge it into the text and republish (${HOW}).`,
  REPUBLISH_THEN_CONTINUE: `This pointer is over 10 minutes old: republish it before going on (${HOW}).`,
  REPUBLISH_WITH_NEW_NEXT_STEP: `The last publishes carried the same text: republish with a new next step (${HOW}).`,
};

/** The pointer block (TASK_POINTER_V2 or TASK_POINTER_V2_BOOTSTRAP), without refs. */
export function renderPointerBlock(i: BlockInput, d: Decision = decisionOf(i.observed, i.now, i.journal)): string {
  const o = i.observed;
  const present = hasPointer(o);
  const dirty = o.status === 'DIRTY';
  const head: string[] = [
    present ? MARKER : BOOTSTRAP_MARKER,
    `STATUS=${o.status ?? o.generation}`,
    `GENERATION=${o.generation}`,
    `REVISION=${o.revision}`,
    `SESSION_ID=${o.session_id}`,
    `PUBLISHER=${i.publisherCommand}`,
    `RECOVERY_MODE=${dirty ? 'MERGE_FIRST' : 'CONTINUE'}`,
  ];
  if (present) head.push(`TASK_ID=${o.task_id}`);
  if (dirty) head.push(`POINTER_AGE_SECONDS=${d.age}`, `JOURNAL_IDENTICAL_TEXT_STREAK=${d.streak}`);
  head.push(`NEXT_ACTION=${d.action}`);
  if (present) head.push('POINTER_TEXT_BEGIN', o.pointer_text ?? '', 'POINTER_TEXT_END');

  const instruction = WHAT[present ? d.action : 'BOOTSTRAP'] ?? WHAT.CONTINUE;
  const example = JSON.stringify({
    schema_version: 3,
    session_id: o.session_id,
    expected_generation: o.generation,
    expected_revision: o.revision,
    task_id: present ? o.task_id : i.exampleTaskId(),
    target_status: 'CLEAN',
    pointer_text: 'Goal: ...\nNext: ...',
  });
  const tail = [`INSTRUCTION=${instruction} ${CAS_HINT}`, `PUBLISH_REQUEST=${example}`];
  // Keep the whole block within the limit: the example goes first, then the instruction.
  for (let keep = tail.length; keep >= 0; keep--) {
    const text = `${[...head, ...tail.slice(0, keep)].join('\n')}\n`;
    if (bytes(text) <= MAX_CONTEXT_BYTES || keep === 0) return text;
  }
  return `${head.join('\n')}\n`;
}

/** The most the unchanged line may take (issue 17: one short line, not a block). */
export const MAX_UNCHANGED_BYTES = 300;

/**
 * The one line a prompt gets when nothing the last full block showed has changed: the
 * marker, UNCHANGED, and the fields that identify that block and say what to do.
 */
export function renderUnchanged(o: Observed, action: string): string {
  return `${hasPointer(o) ? MARKER : BOOTSTRAP_MARKER} UNCHANGED STATUS=${o.status ?? o.generation} GENERATION=${o.generation} REVISION=${o.revision} NEXT_ACTION=${action} (the full block with this GENERATION and REVISION still holds)\n`;
}

/** startup/resume when the state cannot be read: say so and let the agent go on. */
export function renderUnknownRecovery(code: string, sessionId: string, publisherCommand: string): string {
  return [
    `UNKNOWN_RECOVERY:${code}`,
    `SESSION_ID=${sessionId}`,
    `PUBLISHER=${publisherCommand}`,
    `INSTRUCTION=The task pointer of this session could not be read (${code}), so where the task stands is unknown. Recover from the conversation and the repository, do not assume an earlier plan is current, and tell the user; \`baton pointer report ${sessionId}\` shows the state and its journal.`,
    '',
  ].join('\n');
}

/** Appends what renderRefs returns after the block, keeping the whole within MAX_CONTEXT_BYTES. */
export function appendRefs(block: string, renderRefs?: (budgetBytes: number) => string): string {
  if (!renderRefs) return block;
  const left = MAX_CONTEXT_BYTES - bytes(block) - 1;
  if (left <= 0) return block;
  let refs: string;
  try {
    refs = renderRefs(left);
  } catch {
    return block;
  }
  if (!refs) return block;
  const joined = `${block}\n${refs}`;
  return bytes(joined) <= MAX_CONTEXT_BYTES ? joined : block;
}
