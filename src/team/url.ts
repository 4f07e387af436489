// A team URL read as libpq reads a connection URI (libpq-connect.html, "Connection URIs"):
// `postgres[ql]://[user[:password]@][host][:port][,...][/dbname][?name=value&...]`, every part
// percent-decoded, the query's keywords replacing the hierarchical parts, the PG* variables
// filling what neither gives. A host is a TCP name or address, a socket folder (an absolute
// path), `@name` (a socket in Linux's abstract namespace) or empty (the default socket folder).
// Invariant: what this returns is exactly what is connected to — a form or keyword baton cannot
// honour is refused here (USAGE when malformed, TM005 when well formed but unsupported), never
// left for the client to misread (a socket folder taken as a DNS name, a keyword sent to the
// server as a setting, a silent TCP fallback). Pure apart from a stat of the default folders.
import * as fs from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { fail } from '../core/errors.ts';

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

export interface PgHost {
  /** As written (decoded): a name, an address, a socket folder, `@name`; the default folder when it was empty. */
  host: string;
  port: number;
  /** The socket file for a socket host (`\0…` for the abstract namespace), null for TCP. */
  socket: string | null;
}

export interface PgConnection {
  /** Tried in order, the first that answers wins (libpq's multiple hosts). */
  hosts: PgHost[];
  user: string;
  /** From the URL or PGPASSWORD; null when neither gives one (then ~/.pgpass may). */
  password: string | null;
  database: string;
  sslmode: SslMode;
  /** Seconds a connection attempt may take (per host); null: baton's own bound. */
  connectTimeoutS: number | null;
  applicationName: string;
}

/** The query keywords honoured (the hierarchical parts' names among them). */
const KEYWORDS = new Set(['host', 'port', 'user', 'password', 'dbname', 'sslmode', 'ssl', 'connect_timeout', 'application_name', 'fallback_application_name', 'target_session_attrs']);
const SSLMODES: SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** Socket folders tried for an empty host, in order: Debian's libpq default, then upstream's. */
export const DEFAULT_SOCKET_DIRS = ['/var/run/postgresql', '/tmp'];

const usage = (why: string): never => fail('USAGE', `the team URL ${why}: expected postgres://[user[:password]@][host][:port][,...][/database][?keyword=value&...]`);

const unsupported = (why: string, keyword: string): never =>
  fail('TM005', `the team URL ${why}: baton cannot honour it (docs/team.md, "Connection URLs")`, { keyword });

function decode(s: string, what: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return usage(`has a malformed percent-escape in its ${what} (${JSON.stringify(s)})`);
  }
}

function parsePort(s: string): number | null {
  if (s === '') return null;
  if (!/^\d{1,5}$/.test(s) || Number(s) < 1 || Number(s) > 65535) usage(`has an invalid port ${JSON.stringify(s)}`);
  return Number(s);
}

/** The URL cut into its parts, decoded, the query keywords applied over the hierarchical ones: no environment, no defaults. */
export interface UrlParts {
  /** null when no part gives it; a list entry may be '' (the default). */
  hosts: string[] | null;
  ports: string[] | null;
  user: string | null;
  password: string | null;
  database: string | null;
  params: Map<string, string>;
}

export function splitUrl(url: string): UrlParts {
  const m = /^postgres(?:ql)?:\/\/([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?(?:#.*)?$/.exec(url);
  if (!m) usage(/^postgres(ql)?:\/\//.test(url) ? 'is not a connection URI' : 'must start with postgres:// or postgresql://');
  const [, netloc, path, query] = m as RegExpExecArray;
  const at = netloc.lastIndexOf('@');
  const userinfo = at >= 0 ? netloc.slice(0, at) : null;
  const hostpart = at >= 0 ? netloc.slice(at + 1) : netloc;
  let user: string | null = null;
  let password: string | null = null;
  if (userinfo !== null) {
    const colon = userinfo.indexOf(':');
    user = decode(colon >= 0 ? userinfo.slice(0, colon) : userinfo, 'user') || null;
    password = colon >= 0 ? decode(userinfo.slice(colon + 1), 'password') || null : null;
  }
  let hosts: string[] | null = null;
  let ports: string[] | null = null;
  if (hostpart !== '') {
    hosts = [];
    ports = [];
    for (const entry of hostpart.split(',')) {
      const v6 = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
      let h = entry;
      let p = '';
      if (v6) [h, p] = [v6[1], v6[2] ?? ''];
      else if (entry.includes('[') || entry.includes(']')) usage(`has a malformed host ${JSON.stringify(entry)}`);
      else {
        const colon = entry.indexOf(':');
        [h, p] = colon >= 0 ? [entry.slice(0, colon), entry.slice(colon + 1)] : [entry, ''];
      }
      hosts.push(decode(h, 'host'));
      ports.push(p);
    }
    if (ports.every((p) => p === '')) ports = null;
  }
  const params = new Map<string, string>();
  for (const pair of query ? query.split('&') : []) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) usage(`has a query parameter without a value (${JSON.stringify(pair)})`);
    const key = decode(pair.slice(0, eq), 'query');
    const value = decode(pair.slice(eq + 1), 'query');
    if (!KEYWORDS.has(key)) unsupported(`has the query parameter ${JSON.stringify(key)}`, key);
    params.set(key, value);
  }
  // The query replaces the hierarchical parts, as libpq stores it after them.
  if (params.has('host')) hosts = (params.get('host') as string).split(',');
  if (params.has('port')) ports = (params.get('port') as string).split(',');
  if (params.has('user')) user = params.get('user') || null;
  if (params.has('password')) password = params.get('password') || null;
  const database = params.has('dbname') ? params.get('dbname') || null : path ? decode(path, 'database') || null : null;
  return { hosts, ports, user, password, database, params };
}

/** The folder an empty host means: the first default folder holding the port's socket, else the first. */
function defaultSocketDir(port: number, dirs: string[]): string {
  for (const d of dirs) if (fs.existsSync(join(d, `.s.PGSQL.${port}`))) return d;
  return dirs[0];
}

export interface ParseOptions {
  env?: NodeJS.ProcessEnv;
  /** The folders an empty host may mean (DEFAULT_SOCKET_DIRS); tests pass their own. */
  socketDirs?: string[];
}

/** What `url` connects to (see the module comment). USAGE or TM005 when it cannot be honoured. */
export function parsePgUrl(url: string, o: ParseOptions = {}): PgConnection {
  const env = o.env ?? process.env;
  const p = splitUrl(url);
  const hosts = p.hosts ?? (env.PGHOST ? env.PGHOST.split(',') : ['']);
  const ports = (p.ports ?? (env.PGPORT ? env.PGPORT.split(',') : [''])).map(parsePort);
  if (ports.length !== 1 && ports.length !== hosts.length) usage(`gives ${ports.length} ports for ${hosts.length} hosts (one port for all, or one per host)`);
  const targets: PgHost[] = hosts.map((h, i) => {
    const port = (ports.length === 1 ? ports[0] : ports[i]) ?? 5432;
    const host = h === '' ? defaultSocketDir(port, o.socketDirs ?? DEFAULT_SOCKET_DIRS) : h;
    const file = `.s.PGSQL.${port}`;
    if (host.startsWith('/')) return { host, port, socket: join(host, file) };
    if (host.startsWith('@')) return { host, port, socket: `\0${host.slice(1)}/${file}` };
    if (/[\s/]/.test(host)) usage(`has an invalid host ${JSON.stringify(host)}`);
    return { host, port, socket: null };
  });
  const user = p.user ?? env.PGUSER ?? env.PGUSERNAME ?? userInfo().username;
  const rawSsl = p.params.get('sslmode') ?? (p.params.get('ssl') === 'true' ? 'require' : undefined) ?? env.PGSSLMODE ?? 'prefer';
  if (p.params.has('ssl') && p.params.get('ssl') !== 'true') unsupported(`has ssl=${p.params.get('ssl')} (only ssl=true, meaning sslmode=require)`, 'ssl');
  if (!SSLMODES.includes(rawSsl as SslMode)) unsupported(`has sslmode=${rawSsl} (one of ${SSLMODES.join(', ')})`, 'sslmode');
  let sslmode = rawSsl as SslMode;
  // libpq never uses SSL on a socket; the client's setting is one for all hosts.
  const sockets = targets.filter((t) => t.socket !== null).length;
  if (sockets === targets.length) sslmode = 'disable';
  else if (sockets > 0 && sslmode !== 'disable' && sslmode !== 'allow' && sslmode !== 'prefer') unsupported(`mixes socket and TCP hosts with sslmode=${sslmode} (libpq skips SSL on a socket; baton's client sets it for every host)`, 'sslmode');
  const rawTimeout = p.params.get('connect_timeout') ?? env.PGCONNECT_TIMEOUT;
  let connectTimeoutS: number | null = null;
  if (rawTimeout !== undefined && rawTimeout !== '') {
    if (!/^-?\d+$/.test(rawTimeout.trim())) usage(`has connect_timeout=${rawTimeout} (whole seconds)`);
    const n = Number(rawTimeout);
    if (n <= 0) unsupported(`has connect_timeout=${rawTimeout} (no bound): baton always bounds a connection attempt`, 'connect_timeout');
    connectTimeoutS = Math.max(n, 2); // libpq: 1 is taken as 2
  }
  const tsa = p.params.get('target_session_attrs');
  if (tsa !== undefined && tsa !== 'any') unsupported(`has target_session_attrs=${tsa} (only any)`, 'target_session_attrs');
  return {
    hosts: targets,
    user,
    password: p.password ?? (env.PGPASSWORD || null),
    database: p.database ?? env.PGDATABASE ?? user,
    sslmode,
    connectTimeoutS,
    applicationName: p.params.get('application_name') ?? env.PGAPPNAME ?? p.params.get('fallback_application_name') ?? 'baton',
  };
}

/** The URL with its password (in the user part or the query) replaced by `***`: what status and errors print. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/?#]*):[^/?#]*@/i, '$1:***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** The password the URL carries (raw and decoded), to scrub from messages; [] when none. */
export function urlSecrets(url: string): string[] {
  try {
    const p = splitUrl(url).password;
    if (!p) return [];
    return [...new Set([p, encodeURIComponent(p)])];
  } catch {
    return [];
  }
}
