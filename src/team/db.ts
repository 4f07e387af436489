// The team's PostgreSQL side: connecting, the numbered migrations, the channel that wakes
// replicators. Loaded only by `team`/`sync` (dist/team.cjs), never on the hook path.
// Every statement that carries data is a tagged template (parameterised by the client);
// the only unparameterised text is the migrations' fixed DDL.
import postgres from 'postgres';
import { BatonError } from '../core/errors.ts';
import m0001 from './migrations/0001_schema.sql';
import { pgpassFor } from './pgpass.ts';

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

/** The numbered migrations, in order; the version applied last is in baton.schema_version. */
export const MIGRATIONS: { version: number; name: string; sql: string }[] = [{ version: 1, name: '0001_schema', sql: m0001 }];

/** The LISTEN/NOTIFY channel: payload `<session> <seq>`, a wake-up only (catch-up is by seq). */
export const CHANNEL = 'baton_events';

/** Key of the advisory lock migrations take (any fixed 64-bit number; this one spells "baton"). */
const MIGRATE_LOCK = 0x6261746f6e;

/** The URL with its password masked: what status and errors print. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}

let pgpassWarned = false;

/** The password from ~/.pgpass (or PGPASSFILE) when neither the URL nor PGPASSWORD gives one: the client does not read the file itself. */
function passwordFromFile(url: string): string | undefined {
  if (process.env.PGPASSWORD) return undefined;
  try {
    if (new URL(url).password) return undefined;
  } catch {
    return undefined;
  }
  const found = pgpassFor(url);
  if (found.password === null && 'ignored' in found && found.ignored && !pgpassWarned) {
    pgpassWarned = true;
    process.stderr.write(`baton: warning: ${found.ignored}: not read\n`);
  }
  return found.password ?? undefined;
}

export function connect(url: string, opts: { max?: number; onClose?: () => void } = {}): Sql {
  const password = passwordFromFile(url);
  return postgres(url, {
    ...(password !== undefined ? { password } : {}),
    max: opts.max ?? 1,
    connect_timeout: 5,
    idle_timeout: 0,
    onnotice: () => {},
    connection: { application_name: 'baton' },
  });
}

/** TM002 for a connection failure, with the URL masked and the password never echoed. */
export function unreachable(url: string, e: unknown): BatonError {
  const err = e as { code?: string; message?: string };
  const why = String(err?.message ?? e).replaceAll(new URL(url, 'postgres://x').password || '\u0000', '***');
  return new BatonError('TM002', `the team database ${maskUrl(url)} is unreachable: ${why}`, { url: maskUrl(url), cause: err?.code ?? null });
}

/** True for errors that mean "the database is not there right now" (retry later), not a refusal. */
export function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|EPIPE|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|57P01|57P02|57P03|08\w+|28\w+)$/.test(code) || (e as Error)?.message?.includes('ECONNREFUSED') === true;
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
