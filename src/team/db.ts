// The team's PostgreSQL side: connecting, the numbered migrations, the channel that wakes
// replicators. Loaded only by `team`/`sync` (dist/team.cjs), never on the hook path.
// Every statement that carries data is a tagged template (parameterised by the client);
// the only unparameterised text is the migrations' fixed DDL.
import * as net from 'node:net';
import postgres from 'postgres';
import { BatonError } from '../core/errors.ts';
import m0001 from './migrations/0001_schema.sql';
import { pgpassFor } from './pgpass.ts';
import { type PgConnection, type PgHost, maskUrl, parsePgUrl, urlSecrets } from './url.ts';

export { maskUrl };

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

/** The numbered migrations, in order; the version applied last is in baton.schema_version. */
export const MIGRATIONS: { version: number; name: string; sql: string }[] = [{ version: 1, name: '0001_schema', sql: m0001 }];

/** The LISTEN/NOTIFY channel: payload `<session> <seq>`, a wake-up only (catch-up is by seq). */
export const CHANNEL = 'baton_events';

/** Key of the advisory lock migrations take (any fixed 64-bit number; this one spells "baton"). */
const MIGRATE_LOCK = 0x6261746f6e;

let pgpassWarned = false;

/** The password from ~/.pgpass (or PGPASSFILE) when neither the URL nor PGPASSWORD gives one: the client does not read the file itself. */
function passwordFromFile(url: string, c: PgConnection): string | undefined {
  if (c.password !== null) return undefined;
  const found = pgpassFor(url);
  if (found.password === null && 'ignored' in found && found.ignored && !pgpassWarned) {
    pgpassWarned = true;
    process.stderr.write(`baton: warning: ${found.ignored}: not read\n`);
  }
  return found.password ?? undefined;
}

/**
 * The client's timeouts (docs/team.md, "Timeouts"). The `postgres` client has no query
 * timeout, and a link cut without a reset (a dead Wi-Fi, a partition) leaves a socket that
 * the kernel gives up on only after its TCP timeouts, 12 to 15 minutes: these bound it.
 */
export const TIMEOUTS = {
  /** A connection attempt (TCP and the server's first answer) that takes longer fails (CONNECT_TIMEOUT). */
  connectS: 5,
  /** Idle seconds before TCP keepalive probes start on an open connection (the LISTEN one is idle most of the time). */
  keepAliveS: 10,
  /** While an operation runs (guard()), the server is asked `select 1` on a connection of its own this often… */
  probeEveryMs: 5_000,
  /** …and must answer within this; otherwise the link is taken for dead and the operation fails with TM002. */
  probeTimeoutMs: 10_000,
} as const;

/** The sockets of each client connect() made, so guard() can destroy them on a dead link (end() alone waits on the peer). */
const socketsOf = new WeakMap<Sql, Set<net.Socket>>();

/**
 * Opens a connection to the first of the URL's hosts (TCP, or a unix socket: src/team/url.ts)
 * that answers within the URL's connect_timeout, else TIMEOUTS.connectS: the `postgres`
 * client's `socket` option, so baton holds the sockets and the client never resolves a host itself.
 */
function opener(sockets: Set<net.Socket>, targets: PgHost[], timeoutS: number) {
  return async (): Promise<net.Socket> => {
    let last: unknown;
    for (const t of targets) {
      const where = t.socket ? `the socket ${t.socket.replace('\0', '@')}` : `${t.host}:${t.port}`;
      try {
        const s = await new Promise<net.Socket>((resolve, reject) => {
          const s = t.socket ? net.connect(t.socket) : net.connect(t.port, t.host);
          const timer = setTimeout(() => {
            s.destroy();
            reject(Object.assign(new Error(`no answer from ${where} within ${timeoutS} s`), { code: 'CONNECT_TIMEOUT' }));
          }, timeoutS * 1000);
          s.once('connect', () => {
            clearTimeout(timer);
            s.removeAllListeners('error');
            resolve(s);
          });
          s.once('error', (e) => {
            clearTimeout(timer);
            reject(e);
          });
        });
        // What the client reads for TLS's server name when it upgrades the socket.
        Object.assign(s, { host: t.host, port: t.port });
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
        return s;
      } catch (e) {
        last = e;
      }
    }
    throw last;
  };
}

/** The client's `ssl` for a libpq sslmode (docs/team.md, "Connection URLs"). */
function sslOption(mode: PgConnection['sslmode']): false | 'prefer' | 'require' | 'verify-full' | object {
  if (mode === 'disable') return false;
  if (mode === 'allow' || mode === 'prefer') return 'prefer';
  if (mode === 'require') return 'require';
  if (mode === 'verify-ca') return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
  return 'verify-full';
}

/** A client for the team URL, read as libpq reads it (src/team/url.ts: USAGE or TM005 when it cannot be honoured). */
export function connect(url: string, opts: { max?: number } = {}): Sql {
  const c = parsePgUrl(url);
  const password = c.password ?? passwordFromFile(url, c);
  const sockets = new Set<net.Socket>();
  const timeoutS = c.connectTimeoutS ?? TIMEOUTS.connectS;
  // The client's types take one host and port; its code takes lists (multiple hosts).
  const sql = postgres({
    host: c.hosts.map((h) => h.host) as unknown as string,
    port: c.hosts.map((h) => h.port) as unknown as number,
    user: c.user,
    database: c.database,
    ...(password !== undefined ? { pass: password } : {}),
    ssl: sslOption(c.sslmode) as 'prefer',
    max: opts.max ?? 1,
    connect_timeout: timeoutS,
    keep_alive: TIMEOUTS.keepAliveS,
    idle_timeout: 0,
    onnotice: () => {},
    connection: { application_name: c.applicationName },
    // Documented by the client (README, "Custom socket") but missing from its types.
    ...({ socket: opener(sockets, c.hosts, timeoutS) } as object),
  });
  socketsOf.set(sql, sockets);
  return sql;
}

/**
 * Ends a client: its queries get `timeoutS` seconds to finish, then fail; then its sockets
 * (the LISTEN one's too) are destroyed — the client's own end() half-closes them and waits
 * for the peer, which on a dead link keeps the process alive for the kernel's TCP timeouts.
 */
export async function close(sql: Sql, timeoutS = 1): Promise<void> {
  await sql.end({ timeout: timeoutS }).catch(() => {});
  for (const s of socketsOf.get(sql) ?? []) s.destroy();
}

/** Ends a client at once (close with no grace): a dead link, or a failure already reported. */
export function kill(sql: Sql): Promise<void> {
  for (const s of socketsOf.get(sql) ?? []) s.destroy();
  return close(sql, 0);
}

/**
 * Runs `op` (which uses the clients `victims`); while it runs, every TIMEOUTS.probeEveryMs a
 * `select 1` on a connection of its own (opened at the first probe, so a quick operation opens
 * none) must answer within TIMEOUTS.probeTimeoutMs. When it does not, the link is taken for
 * dead: the victims are killed and `op` fails with a connection error (ETIMEDOUT, so TM002).
 * A long operation on a live link is never cut: only a server that stops answering is.
 */
export function guard<T>(url: string, victims: () => (Sql | null)[], op: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let probe: Sql | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      if (probe) void kill(probe);
    };
    const dead = (why: string) => {
      if (settled) return;
      finish();
      for (const v of victims()) if (v) void kill(v);
      reject(Object.assign(new Error(why), { code: 'ETIMEDOUT' }));
    };
    const tick = () => {
      probe ??= connect(url);
      const p = probe;
      const limit = setTimeout(() => dead(`no answer within ${TIMEOUTS.probeTimeoutMs / 1000} s (is the network cut?)`), TIMEOUTS.probeTimeoutMs);
      p`select 1`.then(
        () => {
          clearTimeout(limit);
          if (!settled) timer = setTimeout(tick, TIMEOUTS.probeEveryMs);
        },
        (e: unknown) => {
          clearTimeout(limit);
          if (isConnectionError(e)) return dead(`no answer: ${(e as Error)?.message ?? e}`);
          // Not the link (too many connections …): ask again later on a new connection.
          void kill(p);
          if (probe === p) probe = null;
          if (!settled) timer = setTimeout(tick, TIMEOUTS.probeEveryMs);
        },
      );
    };
    timer = setTimeout(tick, TIMEOUTS.probeEveryMs);
    op().then(
      (v) => {
        if (settled) return;
        finish();
        resolve(v);
      },
      (e) => {
        if (settled) return;
        finish();
        reject(e);
      },
    );
  });
}

/** TM002 for a connection failure, with the URL masked and the password never echoed. */
export function unreachable(url: string, e: unknown): BatonError {
  const err = e as { code?: string; message?: string };
  let why = String(err?.message ?? e);
  for (const secret of urlSecrets(url)) why = why.replaceAll(secret, '***');
  return new BatonError('TM002', `the team database ${maskUrl(url)} is unreachable: ${why}`, { url: maskUrl(url), cause: err?.code ?? null });
}

/** True for errors that mean "the database is not there right now" (retry later), not a refusal. */
export function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  // A socket file that is not there: no server in that folder right now.
  if (code === 'ENOENT' && (e as { syscall?: string }).syscall === 'connect') return true;
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|EPIPE|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|57P01|57P02|57P03|08\w+|28\w+)$/.test(code) || (e as Error)?.message?.includes('ECONNREFUSED') === true;
}

/** Applies the migrations not yet applied, in one transaction under an advisory lock. Returns the version. */
export async function migrate(sql: Sql): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATE_LOCK})`;
    await tx`create schema if not exists baton`;
    await tx`create table if not exists baton.schema_version (version int primary key, name text not null, applied_at timestamptz not null default now())`;
    const [{ v }] = await tx<{ v: number | null }[]>`select max(version) as v from baton.schema_version`;
    let at = v ?? 0;
    for (const m of MIGRATIONS) {
      if (m.version <= at) continue;
      await tx.unsafe(m.sql);
      await tx`insert into baton.schema_version (version, name) values (${m.version}, ${m.name})`;
      at = m.version;
    }
    return at;
  });
}
