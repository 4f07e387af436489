// Index health for `baton doctor` (index.md): is there an index, can it be read, which
// sessions had a projection conflict. Runs a full stat sweep first, so a log replaced
// behind the index's back shows up here. Never builds an index and never writes a log.
import * as fs from 'node:fs';
import { indexConflicts } from './api.ts';
import { DB_FILE, dbPath, isCorruption, withIndex } from './db.ts';
import { reconcile } from './reconcile.ts';

export interface IndexHealth {
  present: boolean;
  ok: boolean;
  conflicts: { session: string; detail: string }[];
  problems: { message: string; fix: string }[];
  bytes: number;
}

function size(path: string): number {
  try {
    return fs.statSync(path).size;
  } catch {
    return 0;
  }
}

export function indexHealth(home: string): IndexHealth {
  const path = dbPath(home);
  const bytes = size(path) + size(`${path}-wal`) + size(`${path}-shm`);
  if (!fs.existsSync(path)) return { present: false, ok: true, conflicts: [], problems: [], bytes: 0 };
  const problems: IndexHealth['problems'] = [];
  const notes: string[] = [];
  try {
    const r = withIndex(
      home,
      { note: (m) => notes.push(m) },
      (db) => {
        reconcile(db, home, { nowMs: Date.now(), fullSweep: true });
        return indexConflicts(db);
      },
      { build: false },
    );
    const conflicts = (r?.value ?? []).map((c) => ({ session: c.session, detail: `${c.detected_at}: ${c.detail}` }));
    if (!r) problems.push({ message: `${DB_FILE} could not be opened${notes.length ? `: ${notes.join('; ')}` : ''}`, fix: 'baton index rebuild' });
    return { present: true, ok: problems.length === 0, conflicts, problems, bytes: size(path) + size(`${path}-wal`) + size(`${path}-shm`) || bytes };
  } catch (e) {
    const message = isCorruption(e) ? `${DB_FILE} is corrupt` : `${DB_FILE}: ${e instanceof Error ? e.message : String(e)}`;
    return { present: true, ok: false, conflicts: [], problems: [{ message, fix: 'baton index rebuild' }], bytes };
  }
}
