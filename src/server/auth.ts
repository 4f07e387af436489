// The server's token (server.md, Auth): `<home>/server.token`, 0600, made on first start,
// replaced by --new-token. Every HTTP request and WebSocket upgrade carries it (Bearer
// header, or ?token= once, exchanged for an HttpOnly SameSite=Strict cookie). Also
// `<home>/server.json`: the running server's pid and port for `baton status`.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { claimHome } from '../store/home.ts';
import type { ReplicatorStatus } from '../team/watch.ts';

export const TOKEN_FILE = 'server.token';
export const SERVER_FILE = 'server.json';
export const COOKIE = 'baton_token';

/** The token, made (0600, exclusive create) when missing or when renew is asked. */
export function serverToken(home: string, renew: boolean): string {
  claimHome(home);
  const path = join(home, TOKEN_FILE);
  if (!renew) {
    try {
      const t = fs.readFileSync(path, 'utf8').trim();
      if (/^[0-9a-f]{64}$/.test(t)) {
        fs.chmodSync(path, 0o600);
        return t;
      }
    } catch {}
  }
  const token = randomBytes(32).toString('hex');
  const tmp = `${path}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, path);
  return token;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieToken(req: IncomingMessage): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return null;
}

/** How the request proved it knows the token: 'query' asks the caller to set the cookie. Null: 401. */
export function authenticate(req: IncomingMessage, url: URL, token: string): 'header' | 'cookie' | 'query' | null {
  const h = req.headers.authorization;
  if (h?.startsWith('Bearer ') && same(h.slice(7).trim(), token)) return 'header';
  const c = cookieToken(req);
  if (c !== null && same(c, token)) return 'cookie';
  const q = url.searchParams.get('token');
  if (q !== null && same(q, token)) return 'query';
  return null;
}

export function tokenCookie(token: string): string {
  return `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

export interface ServerFile {
  pid: number;
  host: string;
  port: number;
  url: string;
  started_at: string;
  /** The team replicator's state (team.md) when the server runs one. */
  team?: ReplicatorStatus;
}

export function writeServerFile(home: string, s: ServerFile): void {
  const path = join(home, SERVER_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(s)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, path);
}

/** Removes server.json when it still names this process (another server may have replaced it). */
export function removeServerFile(home: string): void {
  const path = join(home, SERVER_FILE);
  try {
    const s = JSON.parse(fs.readFileSync(path, 'utf8')) as ServerFile;
    if (s.pid === process.pid) fs.unlinkSync(path);
  } catch {}
}

/** What `baton status` shows of the app server: server.json, and whether its process still runs. */
export function serverStatus(home: string): (ServerFile & { running: boolean }) | null {
  let s: ServerFile;
  try {
    s = JSON.parse(fs.readFileSync(join(home, SERVER_FILE), 'utf8')) as ServerFile;
  } catch {
    return null;
  }
  let running = false;
  try {
    process.kill(s.pid, 0);
    running = true;
  } catch (e) {
    running = (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return { ...s, running };
}
