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

// Said once, plainly: what to do now (by status and NEXT_ACTION), then the request's form with
// the fields above named, not repeated (SESSION_ID, GENERATION, REVISION and TASK_ID carry them).
const WHAT: Record<string, string> = {
  BOOTSTRAP: "Publish this session's first pointer now (the goal and the next concrete step); keep its task_id for later publishes.",
  CONTINUE: 'Continue from this pointer; publish a new one when the goal or the next step changes.',
  MERGE_THEN_REPUBLISH: 'Merge the work done since into the text and republish it.',
  REPUBLISH_THEN_CONTINUE: 'The pointer is over 10 minutes old: republish it before going on.',
  REPUBLISH_WITH_NEW_NEXT_STEP: 'The last publishes repeated one text: republish it with a new next step.',
};
const AFTER = "On STALE_*, merge and retry with the receipt's current values. Until this block changes, prompts get one UNCHANGED line.";

/** The publish request's form: the block's own fields as <KEY>, a fresh task id when there is no pointer yet. */
function requestForm(taskId: string | null): string {
  const task = taskId === null ? '"<TASK_ID>"' : JSON.stringify(taskId);
  return `{"schema_version":3,"session_id":"<SESSION_ID>","expected_generation":"<GENERATION>","expected_revision":<REVISION>,"task_id":${task},"target_status":"CLEAN","pointer_text":"Goal: ...\\nNext: ..."}`;
}

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

  const what = WHAT[present ? d.action : 'BOOTSTRAP'] ?? WHAT.CONTINUE;
  const how = `To publish, pipe into PUBLISHER (each <KEY> its value above): ${requestForm(present ? null : i.exampleTaskId())}.`;
  const text = `${[...head, `INSTRUCTION=${what} ${how} ${AFTER}`].join('\n')}\n`;
  // The text may be 8192 bytes and the id 128 characters: should the whole still not fit, the instruction goes.
  return bytes(text) <= MAX_CONTEXT_BYTES ? text : `${head.join('\n')}\n`;
}

/** The most the unchanged line may take (issue 17: one short line, not a block). */
export const MAX_UNCHANGED_BYTES = 300;

/**
 * The one line a prompt gets when nothing the last full block showed has changed: the
 * marker, UNCHANGED, the REVISION that names that block (every write bumps it, a new
 * generation included) and what to do. The full block's INSTRUCTION says once what it means.
 */
export function renderUnchanged(o: Observed, action: string): string {
  return `${hasPointer(o) ? MARKER : BOOTSTRAP_MARKER} UNCHANGED STATUS=${o.status ?? o.generation} REVISION=${o.revision} NEXT_ACTION=${action}\n`;
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
