// The server's token (server.md, Auth): `<home>/server.token`, 0600, made on first start,
// replaced by --new-token. Every request that reads or writes the store carries it: the
// Bearer header, the WebSocket subprotocol `baton.token.<T>` (what a browser page can send),
// or `?token=T`. Never a cookie: cookies are scoped by host, not port, so one on 127.0.0.1
// would go to every local web app (docs/adr/0050-web-token-not-a-cookie.md). Also
// `<home>/server.json`: the running server's pid and port for `baton status`.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { claimHome } from '../store/home.ts';
import type { ReplicatorStatus } from '../team/watch.ts';

export const TOKEN_FILE = 'server.token';
export const SERVER_FILE = 'server.json';
/** The cookie earlier versions set: the page's response clears it, nothing reads it. */
export const COOKIE = 'baton_token';
/** The WebSocket subprotocol the server selects; the token rides as a second one, `baton.token.<T>`. */
export const WS_PROTOCOL = 'baton';
export const WS_TOKEN_PREFIX = 'baton.token.';

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

function protocolToken(req: IncomingMessage): string | null {
  for (const p of String(req.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const t = p.trim();
    if (t.startsWith(WS_TOKEN_PREFIX)) return t.slice(WS_TOKEN_PREFIX.length);
  }
  return null;
}

/** How the request proved it knows the token (header, WebSocket subprotocol or query). Null: 401. */
export function authenticate(req: IncomingMessage, url: URL, token: string): 'header' | 'protocol' | 'query' | null {
  const h = req.headers.authorization;
  if (h?.startsWith('Bearer ') && same(h.slice(7).trim(), token)) return 'header';
  const p = protocolToken(req);
  if (p !== null && same(p, token)) return 'protocol';
  const q = url.searchParams.get('token');
  if (q !== null && same(q, token)) return 'query';
  return null;
}

/** Clears the cookie an earlier version set (so browsers stop sending it to every local port). */
export const CLEAR_COOKIE = `${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`;

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
