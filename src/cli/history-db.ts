// An agent's SQLite database (opencode, Kilo) opened for history import without touching it.
// SQLite's read-only open of a WAL database creates `-wal` and `-shm` beside it when they are
// missing (seen with 3.53: they stay after close), and the `immutable` URI parameter that would
// avoid it is compiled out of better-sqlite3 (SQLITE_USE_URI=0). So the database (and its
// `-wal`, when the agent left one) is copied into a private temp folder — a plain read of the
// agent's files — and the copy is opened `{ readonly: true, fileMustExist: true }`. A copy taken
// while the agent writes is retried until the files' size and mtime hold still across it.
// Invariant: nothing is ever created, written, locked or renamed beside the agent's database.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteBinding } from '../index/db.ts';
import type { OpenedDb } from '../transcripts/history.ts';
import type { Db } from '../transcripts/types.ts';

const stamp = (p: string): string => {
  try {
    const st = fs.statSync(p);
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return '-';
  }
};

export function openDatabaseCopy(path: string): OpenedDb {
  const dir = fs.mkdtempSync(join(tmpdir(), 'baton-history-db-'));
  try {
    const copy = join(dir, 'agent.db');
    for (let attempt = 0; ; attempt++) {
      const before = `${stamp(path)} ${stamp(`${path}-wal`)}`;
      fs.copyFileSync(path, copy);
      fs.rmSync(`${copy}-wal`, { force: true });
      if (fs.existsSync(`${path}-wal`)) fs.copyFileSync(`${path}-wal`, `${copy}-wal`);
      if (`${stamp(path)} ${stamp(`${path}-wal`)}` === before || attempt >= 4) break;
    }
    const db = new Database(copy, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() });
    return {
      db: db as unknown as Db,
      close() {
        try {
          db.close();
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
