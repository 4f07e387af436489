// Rebuild: the whole index from the logs, as a pure-ish function of (db, home) in the
// style of an importer: run(db, {progress}) -> stats and a list of errors. Reads logs,
// never writes them. The caller provides an empty, migrated database (db.ts buildFresh).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { LOG_FILE } from '../store/log.ts';
import type { Db } from './db.ts';
import { readLogInto, statLog } from './logread.ts';
import { feedState, setMeta } from './meta.ts';
import { emptyRow } from './project.ts';
import { IndexWriter } from './writer.ts';

export interface RebuildStats {
  sessions: number;
  events: number;
  texts: number;
  corrupt: number;
  errors: { session: string; message: string }[];
  ms: number;
}

const BATCH = 1000;

export function sessionNames(sessionsDir: string): string[] {
  try {
    return fs.readdirSync(sessionsDir).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}

export function dirStamp(path: string): string {
  try {
    return String(fs.statSync(path, { bigint: true }).mtimeNs);
  } catch {
    return '';
  }
}

export function rebuild(db: Db, home: string, opts: { progress?: (done: number, total: number) => void; nowMs?: number } = {}): RebuildStats {
  const t0 = performance.now();
  const sessionsDir = join(home, 'sessions');
  // Noted before reading: whatever is appended while we read is caught up afterwards.
  const feed = feedState(home);
  const dirMtime = dirStamp(sessionsDir);
  const names = sessionNames(sessionsDir).sort();
  const w = new IndexWriter(db);
  const stats: RebuildStats = { sessions: 0, events: 0, texts: 0, corrupt: 0, errors: [], ms: 0 };
  const total = names.length;
  opts.progress?.(0, total);
  for (let i = 0; i < total; i += BATCH) {
    db.transaction(() => {
      for (const id of names.slice(i, i + BATCH)) {
        try {
          const path = join(sessionsDir, id, LOG_FILE);
          const st = statLog(path);
          if (!st || st.size === 0) continue;
          const num = w.newNum();
          const row = emptyRow(id);
          readLogInto(path, row, st.size, (op) => {
            if (op.kind === 'text') stats.texts++;
            w.text(num, op);
          });
          if (row.last_seq === 0 && !row.corrupt) continue; // no complete first line yet
          w.upsert(num, row, st);
          stats.sessions++;
          stats.events += row.events;
          if (row.corrupt) stats.corrupt++;
        } catch (e) {
          stats.errors.push({ session: id, message: e instanceof Error ? e.message : String(e) });
        }
      }
    })();
    opts.progress?.(Math.min(total, i + BATCH), total);
  }
  setMeta(db, {
    feed_ino: feed.ino,
    feed_offset: String(feed.size),
    sessions_mtime: dirMtime,
    sweep_due_ms: String((opts.nowMs ?? Date.now()) + sweepIntervalMs()),
    built_at: new Date(opts.nowMs ?? Date.now()).toISOString(),
  });
  stats.ms = Math.round(performance.now() - t0);
  return stats;
}

/** How often a reader re-stats every log, for changes no feed line announced (synced or hand-edited logs). */
export function sweepIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.BATON_INDEX_SWEEP_MS);
  return Number.isFinite(v) && v >= 0 && env.BATON_INDEX_SWEEP_MS !== '' && env.BATON_INDEX_SWEEP_MS !== undefined ? v : 60_000;
}
