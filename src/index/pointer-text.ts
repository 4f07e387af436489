// The published pointer's text, searchable (issue 29.4). Source of truth: the session's
// state.json (pointer.md); the log's `pointer.published|cleared` events carry metadata only,
// never the text. So the index holds the words of the current pointer in one search row per
// session, at the last rowid of the session's range (num * 2^32 + POINTER_SLOT: no event
// seq gets there), written whenever a catch-up or a rebuild folds a pointer event and read
// back from state.json by search (the index holds no text). Read-only: never writes state.json.
// What a crash leaves: a state.json ahead of its event (cas.ts) is searched as it is, but
// its new words are indexed only with the next pointer event.
import * as fs from 'node:fs';
import { readState, statePath } from '../pointer/state.ts';
import type { Chunk } from './chunks.ts';
import type { PointerOp } from './project.ts';

export const POINTER_TYPE = 'pointer.published';
export const POINTER_SLOT = 2 ** 32 - 1;

/** The pointer a session shows: its text when there is one (not cleared, not empty) and when it was written; null otherwise or unreadable. */
export function pointerText(sessionDir: string, id: string): { text: string; at: string } | null {
  // Most sessions of a store with pointer events have a state.json; one without (a copied or
  // synced store) is told apart by a stat, not a thrown ENOENT (~10 µs each, on every session
  // of a rebuild). A link answers true here and is refused by readState below.
  if (!fs.existsSync(statePath(sessionDir))) return null;
  try {
    const st = readState(sessionDir, id);
    if (st.status === 'CLEARED' || !st.pointer_text || !st.updated_at) return null;
    return { text: st.pointer_text, at: st.updated_at };
  } catch {
    return null; // absent, a link, corrupt: nothing to search (the pointer commands report it)
  }
}

/**
 * The pointer event a session's row names, after another one: the first of a run with the
 * same digest (the publish that set the text, not a later DIRTY mark of it), as a catch-up
 * that keeps its row for the same digest does (writer.ts), so a rebuild names the same seq.
 */
export function laterPointer(held: PointerOp | null, op: PointerOp): PointerOp {
  return held && op.digest && held.digest === op.digest ? held : op;
}

/**
 * The search row of a session's pointer: its text, the seq and line of the last pointer
 * event (what a hit names), and the type with the event's digest (`pointer.published:<digest>`),
 * so a catch-up that folds a pointer event with the same digest (a DIRTY mark) keeps the row.
 */
export function pointerChunk(sessionDir: string, id: string, seq: number, off: number, digest: string): Chunk | null {
  const p = pointerText(sessionDir, id);
  if (!p) return null;
  return { seqs: [seq], offs: [off], types: [`${POINTER_TYPE}:${digest}`], texts: [p.text], slot: POINTER_SLOT };
}
