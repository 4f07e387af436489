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
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteModulePath } from '../index/rebuild-worker.ts';
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

/** The package's compiled addon, as src/index/db.ts finds it (better-sqlite3's JavaScript is bundled into baton's). */
const ADDON_DIRS = ['build/Release', 'build/Debug', 'out/Release', 'out/Debug', 'Release', 'Debug', 'build/default'];
let addon: string | undefined | null = null;
function addonPath(): string | undefined {
  if (addon !== null) return addon;
  const main = sqliteModulePath();
  addon = main ? ADDON_DIRS.map((d) => join(dirname(main), '..', d, 'better_sqlite3.node')).find((p) => fs.existsSync(p)) : undefined;
  return addon;
}

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
    const db = new Database(copy, { readonly: true, fileMustExist: true, nativeBinding: addonPath() });
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
