// What one provider session was last shown of the task pointer, so that a prompt says the
// block once and then one short line while nothing in it changed (docs/pointer.md, "Said once").
// Source of truth: none but "what this viewer was shown" — the pointer lives in state.json, the
// refs in refs/. Writer: the hook of that provider session, one tiny file per viewer under
// <session>/.shown/, rewritten in place without fsync (not exported: a dot folder). A crash or a
// failed write leaves an older, empty or unparsable file, read as "never shown": the next prompt
// gets the full block again, the safe direction.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { ensureSubdir, writeInPlace } from '../store/fsutil.ts';

export const SHOWN_DIR = '.shown';

/** The fields of a full block that a short line stands for. */
export interface Shown {
  session_id: string;
  marker: string;
  status: string;
  generation: string;
  revision: number;
  next_action: string;
  publisher: string;
  /** The refs as shown: `digest state` per ref, in render order; '' without refs. */
  refs: string;
  /**
   * Shown by a resume start that changed what the viewer had seen: the provider may not have
   * handed that start's context to the model yet (Claude Code's print mode goes on without
   * waiting for it), so the next prompt says the block in full again (docs/adr/0094).
   */
  unconfirmed?: true;
}

/** `<provider>.<provider session id>`, made a file name injectively; null when too long to be one. */
function fileOf(dir: string, viewer: string): string | null {
  const name = encodeURIComponent(viewer);
  return name.length > 200 ? null : join(dir, SHOWN_DIR, `${name}.json`);
}

export function readShown(dir: string, viewer: string): Shown | null {
  const f = fileOf(dir, viewer);
  if (!f) return null;
  try {
    const s = JSON.parse(fs.readFileSync(f, 'utf8')) as Shown;
    return s && typeof s === 'object' && typeof s.generation === 'string' && typeof s.refs === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** Whether the pointer part of two views is the same (the refs are compared on their own). */
export function samePointer(a: Shown, b: Shown): boolean {
  return (
    a.session_id === b.session_id &&
    a.marker === b.marker &&
    a.status === b.status &&
    a.generation === b.generation &&
    a.revision === b.revision &&
    a.next_action === b.next_action &&
    a.publisher === b.publisher
  );
}

/** Never throws: a memory that cannot be written only costs the next prompt a full block. */
export function rememberShown(dir: string | null, viewer: string, s: Shown): void {
  if (dir === null) return;
  const f = fileOf(dir, viewer);
  if (!f) return;
  const text = `${JSON.stringify(s)}\n`;
  try {
    writeInPlace(f, text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return;
    try {
      ensureSubdir(join(dir, SHOWN_DIR));
      writeInPlace(f, text);
    } catch {}
  }
}

/** The provider is about to drop context (PreCompact / PreCompress): the next prompt says it all again. */
export function forgetShown(dir: string | null, viewer: string): void {
  if (dir === null) return;
  const f = fileOf(dir, viewer);
  if (!f) return;
  try {
    fs.unlinkSync(f);
  } catch {}
}
