// The password file libpq reads (~/.pgpass, or the file PGPASSFILE names), read here because
// the `postgres` client does not (docs/adr/0023). Read-only; the password it finds is handed
// to the client and never printed. A file that group or others may read is ignored, as libpq
// ignores it.
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parsePgUrl } from './url.ts';

export interface PgTarget {
  host: string;
  port: string;
  database: string;
  user: string;
}

/** One line's fields: `:` separates, `\` escapes the next character (`\:`, `\\`). */
export function splitPgpassLine(line: string): string[] {
  const fields: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && i + 1 < line.length) cur += line[++i];
    else if (c === ':') {
      fields.push(cur);
      cur = '';
    } else cur += c;
  }
  fields.push(cur);
  return fields;
}

/** The password of the first line matching the target (each of the first four fields literal or `*`), or null. */
export function findPgpassPassword(text: string, t: PgTarget): string | null {
  const want = [t.host, t.port, t.database, t.user];
  for (const raw of text.split(/\r?\n/)) {
    if (raw === '' || raw.startsWith('#')) continue;
    const f = splitPgpassLine(raw);
    if (f.length < 5) continue;
    if (want.every((w, i) => f[i] === '*' || f[i] === w)) return f.slice(4).join(':');
  }
  return null;
}

/**
 * What the client will connect to first (src/team/url.ts: the URL, its query, then
 * PGHOST/PGPORT/PGUSER/PGDATABASE, then the defaults). A socket folder as host matches
 * `localhost` in the file, as in libpq.
 */
export function targetOf(url: string, env: NodeJS.ProcessEnv = process.env): PgTarget {
  const c = parsePgUrl(url, { env });
  const first = c.hosts[0];
  return { host: first.socket ? 'localhost' : first.host, port: String(first.port), database: c.database, user: c.user };
}

export type PgpassLookup = { password: string; file: string } | { password: null; file: string | null; ignored?: string };

/**
 * The password for `url` from the password file, when the URL and PGPASSWORD give none.
 * Returns where it looked and, when the file was skipped, why (never the password in a message).
 */
export function pgpassFor(url: string, env: NodeJS.ProcessEnv = process.env): PgpassLookup {
  const file = env.PGPASSFILE || join(env.HOME || homedir(), '.pgpass');
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return { password: null, file: null };
  }
  if (!st?.isFile()) return { password: null, file: null };
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    return { password: null, file, ignored: `${file} has group or world access (mode ${(st.mode & 0o777).toString(8)}); it should be 0600` };
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { password: null, file: null };
  }
  const password = findPgpassPassword(text, targetOf(url, env));
  return password === null ? { password: null, file } : { password, file };
}
