// A rebuild sink that hands the SQLite and FTS work to a worker thread, so reading and
// parsing the next logs (this thread) overlaps with indexing the previous ones (the
// worker). The worker owns the temp database of a fresh build (db.ts buildFresh) and
// nothing else; this thread waits on a shared counter so at most a few batches are in
// flight (bounded memory). Any worker error fails the build, which then leaves baton.db as
// it was. The worker's code is a string (no extra bundle), given the SQL it runs.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { MessagePort, Worker } from 'node:worker_threads';
import { type Chunk, chunkColumns } from './chunks.ts';
import type { LogStat } from './logread.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.ts';
import type { SessionRow } from './project.ts';
import type { RebuildSink } from './rebuild.ts';
import { INSERT_TEXT_SQL, UPSERT_SQL, rowParams, textRowid } from './writer.ts';

// Small batches (20 chunks: ~120 KB of text for typical chunks, under glibc's 128 KiB mmap
// threshold, so a message's buffer is mostly reused heap, not fresh pages; at most ~320 KB) and
// as many chunks in flight as before.
const MAX_IN_FLIGHT = 60;
const CHUNKS_PER_BATCH = 20;
/** A worker that makes no progress for this many seconds has died: the build fails. */
const STALL_S = 120;

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { sqlitePath, dbPath, migrations, schemaVersion, upsertSql, textSql, port, state, bulkSql, bulkDoneSql } = workerData;
const flags = new Int32Array(state);
const fail = (e) => {
  try { port.postMessage({ error: String((e && e.message) || e), code: (e && e.code) || '' }); } catch {}
  Atomics.store(flags, 1, 2);
  Atomics.notify(flags, 1);
  Atomics.store(flags, 0, 0);
  Atomics.notify(flags, 0);
};
try {
  const Database = require(sqlitePath);
  const db = new Database(dbPath);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  // A small cache: FTS5 writes its segments once, in order, and never reads them back during
  // the build; a larger one only faulted in fresh memory (32 MiB: +7,000 page faults, +30 MiB).
  db.pragma('cache_size = -4096');
  for (const sql of migrations) db.exec(sql);
  db.pragma('user_version = ' + schemaVersion);
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?)").run('baton-index-' + schemaVersion);
  for (const sql of bulkSql) db.exec(sql);
  db.exec('BEGIN');
  const up = db.prepare(upsertSql);
  const tx = db.prepare(textSql);
  const meta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  port.on('message', (m) => {
    if (Atomics.load(flags, 1) === 2) return;
    try {
      if (m.texts) {
        const t = m.texts;
        for (let i = 0; i < t.length; i += 5) tx.run(t[i], t[i + 1], t[i + 2], t[i + 3], t[i + 4]);
        for (const s of m.sessions) up.run(s);
        Atomics.sub(flags, 0, 1);
        Atomics.notify(flags, 0);
      }
      if (m.meta) {
        for (const k of Object.keys(m.meta)) meta.run(k, m.meta[k]);
        db.exec(bulkDoneSql);
        db.exec('COMMIT');
        db.pragma('locking_mode = NORMAL');
        db.pragma('journal_mode = WAL');
        db.close();
        port.close();
        Atomics.store(flags, 1, 1);
        Atomics.notify(flags, 1);
      }
    } catch (e) {
      fail(e);
    }
  });
} catch (e) {
  fail(e);
}
`;

/**
 * better-sqlite3's entry (for the worker to require, and the addon beside it: db.ts), resolved
 * as a require() of the running bundle would (its real path: a `baton` linked into a bin folder
 * runs from the package's folder), else of the main script, else of the working folder; null
 * when it cannot be found (no worker then).
 */
export function sqliteModulePath(): string | null {
  const bundle = typeof __filename === 'string' ? __filename : null;
  for (const from of [bundle, process.argv[1] ? resolve(process.argv[1]) : null, join(process.cwd(), 'noop.js')]) {
    if (!from) continue;
    try {
      return createRequire(from).resolve('better-sqlite3');
    } catch {}
  }
  return null;
}

class WorkerError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

export class WorkerSink implements RebuildSink {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flags: Int32Array;
  private texts: (string | number)[] = [];
  private sessions: Record<string, string | number | null>[] = [];

  constructor(dbPath: string, sqlitePath: string, bulkSql: string[], bulkDoneSql: string) {
    // Loaded here, not at the top: every CLI start would pay for worker_threads otherwise.
    const { MessageChannel, Worker } = process.getBuiltinModule('node:worker_threads');
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const state = new SharedArrayBuffer(8);
    this.flags = new Int32Array(state);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        sqlitePath,
        dbPath,
        migrations: MIGRATIONS.map((m) => m.sql),
        schemaVersion: SCHEMA_VERSION,
        upsertSql: UPSERT_SQL,
        textSql: INSERT_TEXT_SQL,
        port: port2,
        state,
        bulkSql,
        bulkDoneSql,
      },
      transferList: [port2],
    });
    this.worker.unref();
  }

  private check(): void {
    if (Atomics.load(this.flags, 1) !== 2) return;
    const m = process.getBuiltinModule('node:worker_threads').receiveMessageOnPort(this.port)?.message as { error?: string; code?: string } | undefined;
    throw new WorkerError(`index worker: ${m?.error ?? 'failed'}`, m?.code ?? '');
  }

  session(num: number, row: SessionRow, stat: LogStat): void {
    this.sessions.push(rowParams(num, row, stat));
  }

  chunk(num: number, c: Chunk): void {
    this.texts.push(textRowid(num, c.slot ?? c.seqs[0]), ...chunkColumns(c));
    if (this.texts.length >= CHUNKS_PER_BATCH * 5) this.post();
  }

  private post(): void {
    this.check();
    let idle = 0;
    for (;;) {
      const n = Atomics.load(this.flags, 0);
      if (n < MAX_IN_FLIGHT) break;
      if (Atomics.wait(this.flags, 0, n, 1000) === 'timed-out' && ++idle > STALL_S) throw new WorkerError('index worker: no progress for 2 minutes', '');
      this.check();
    }
    Atomics.add(this.flags, 0, 1);
    this.port.postMessage({ texts: this.texts, sessions: this.sessions });
    this.texts = [];
    this.sessions = [];
  }

  flush(): void {
    if (this.texts.length || this.sessions.length) this.post();
  }

  finish(meta: Record<string, string>): void {
    this.flush();
    this.port.postMessage({ meta });
    let idle = 0;
    let pending = Atomics.load(this.flags, 0);
    while (Atomics.load(this.flags, 1) === 0) {
      Atomics.wait(this.flags, 1, 0, 1000);
      const now = Atomics.load(this.flags, 0);
      idle = now === pending ? idle + 1 : 0;
      pending = now;
      if (idle > STALL_S) throw new WorkerError('index worker: no progress for 2 minutes', '');
    }
    this.check();
    this.close();
  }

  close(): void {
    void this.worker.terminate();
    this.port.close();
  }
}
