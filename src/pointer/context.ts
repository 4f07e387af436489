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

const CAS_HINT =
  'A STALE_GENERATION or STALE_REVISION receipt means someone published (or /clear fenced) in between: its current_generation and current_revision are the state now; merge and retry with them.';

/** The pointer block (TASK_POINTER_V2 or TASK_POINTER_V2_BOOTSTRAP), without refs. */
export function renderPointerBlock(i: BlockInput): string {
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
  let action = nextAction(o.status, 0, 0);
  if (present) head.push(`TASK_ID=${o.task_id}`);
  if (dirty) {
    const age = pointerAgeSeconds(o.updated_at, i.now);
    const streak = identicalTextStreak(i.journal);
    action = nextAction(o.status, age, streak);
    head.push(`POINTER_AGE_SECONDS=${age}`, `JOURNAL_IDENTICAL_TEXT_STREAK=${streak}`);
  }
  head.push(`NEXT_ACTION=${action}`);
  if (present) head.push('POINTER_TEXT_BEGIN', o.pointer_text ?? '', 'POINTER_TEXT_END');

  let instruction: string;
  if (!present) {
    instruction =
      'No task pointer is published for this session yet. Publish the first one now: a short note with the goal and the next concrete step (at most 8192 UTF-8 bytes). ' +
      'Pipe one JSON request like PUBLISH_REQUEST below (your own pointer_text; keep the task_id for later publishes) on stdin into the PUBLISHER command; it answers with one JSON receipt.';
  } else if (dirty) {
    const why =
      action === 'REPUBLISH_THEN_CONTINUE'
        ? 'It is over 10 minutes old: republish it before going on.'
        : action === 'REPUBLISH_WITH_NEW_NEXT_STEP'
          ? 'The last publishes carried the same text: republish it with a new next step.'
          : 'Merge what happened since into it, then republish it.';
    instruction = `The pointer is DIRTY: work happened since it was last published. ${why} Republish as target_status CLEAN by piping PUBLISH_REQUEST (with the merged pointer_text) into the PUBLISHER command.`;
  } else {
    instruction = 'Continue from this pointer. When the goal or the next step changes, publish the new pointer: pipe PUBLISH_REQUEST (with the new pointer_text) into the PUBLISHER command.';
  }
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
