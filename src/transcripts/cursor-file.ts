// Where a capture cursor lives and whether a transcript grew past it: small enough for the
// hook bundle, so a start's catch-up can tell "nothing new" with two stats and one small read,
// without loading the readers and the capture engine (dist/hook-transcript.cjs).
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { sha256Hex } from '../core/hash.ts';

export const TRANSCRIPTS_DIR = 'transcripts';

/** The cursor's file for one agent session and transcript file. */
export function cursorPath(sessionDir: string, agent: string, agentSession: string, path: string): string {
  return join(sessionDir, TRANSCRIPTS_DIR, `${agent}-${sha256Hex(`${agentSession}\u0000${path}`).slice(0, 16)}.cursor.json`);
}

/**
 * False only when it is certain the transcript holds nothing the cursor has not read: the file
 * is missing or empty, or it has the inode and size the cursor last saw. Anything unclear is true.
 */
export function transcriptMayHaveNew(sessionDir: string, agent: string, agentSession: string, path: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch {
    return false;
  }
  if (!st.isFile() || st.size === 0) return false;
  try {
    const c = JSON.parse(fs.readFileSync(cursorPath(sessionDir, agent, agentSession, path), 'utf8')) as { ino?: string; size?: number; offset?: number };
    return !(c.ino === String(st.ino) && c.size === st.size && c.offset === st.size);
  } catch {
    return true;
  }
}
