// The page's one connection to `baton serve`: BatonClient over the browser's WebSocket at
// /rpc, initialised as surface `web`. The token comes from the address (`?token=T`, which
// the page then drops from the address bar) and lives in this tab's sessionStorage (scoped
// to this origin, port included), never in a cookie (a cookie on 127.0.0.1 goes to every
// local port: docs/adr/0050-web-token-not-a-cookie.md); it rides on the WebSocket as a
// subprotocol and on the file routes as an Authorization header.
// When the socket drops, every view hears `down`, the client reconnects with backoff, and
// views hear `up` again to re-read and to re-subscribe from the last seq they saw.
import { BatonClient, BatonRpcError } from '../../src/client/index.ts';

export type Client = BatonClient;
export type ConnState = 'connecting' | 'up' | 'down';

type Listener = (s: ConnState) => void;

const TOKEN_KEY = 'baton.token';
let token: string | null = null;

/** Takes ?token= out of the address (into sessionStorage), once, before anything else reads the URL. */
export function takeToken(): string | null {
  const u = new URL(window.location.href);
  const given = u.searchParams.get('token');
  if (given) {
    try {
      sessionStorage.setItem(TOKEN_KEY, given);
    } catch {}
    u.searchParams.delete('token');
    history.replaceState(history.state, '', `${u.pathname}${u.search}${u.hash}`);
    token = given;
    return token;
  }
  try {
    token = sessionStorage.getItem(TOKEN_KEY);
  } catch {
    token = null;
  }
  return token;
}

export function hasToken(): boolean {
  return token !== null && token !== '';
}

/** fetch() of one of the server's file routes (artifacts, contexts), with the token as a header. */
export function authFetch(path: string): Promise<Response> {
  return fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: 'omit', cache: 'no-store' });
}

let client: BatonClient | null = null;
let state: ConnState = 'connecting';
let attempt = 0;
const listeners = new Set<Listener>();
const waiters: ((c: BatonClient) => void)[] = [];

function set(s: ConnState): void {
  state = s;
  for (const l of listeners) l(s);
}

function rpcUrl(): string {
  const u = new URL('rpc', window.location.href);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.search = '';
  u.hash = '';
  return u.toString();
}

async function open(): Promise<void> {
  set(client ? 'down' : 'connecting');
  try {
    const c = await BatonClient.connect(rpcUrl(), token ? { token } : {});
    await c.initialize({ clientInfo: { name: 'page', version: '1' }, surface: 'web' });
    c.transport.onClose(() => {
      if (client === c) {
        client = null;
        set('down');
        retry();
      }
    });
    client = c;
    attempt = 0;
    set('up');
    for (const w of waiters.splice(0)) w(c);
  } catch {
    set('down');
    retry();
  }
}

function retry(): void {
  attempt++;
  setTimeout(() => void open(), Math.min(5000, 250 * 2 ** Math.min(attempt, 5)));
}

/** The connected client (waits while the connection is down). */
export function rpc(): Promise<BatonClient> {
  if (client && !client.closed) return Promise.resolve(client);
  return new Promise((r) => waiters.push(r));
}

export function connState(): ConnState {
  return state;
}

export function onConn(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function start(): void {
  if (token === null) takeToken();
  if (!hasToken()) {
    set('down');
    return;
  }
  void open();
}

/** The text a refusal shows: baton's code and message (server.md's error data). */
export function describeError(e: unknown): { code: string; message: string } {
  if (e instanceof BatonRpcError) return { code: e.batonCode, message: e.data?.message ?? e.message };
  return { code: 'ERROR', message: e instanceof Error ? e.message : String(e) };
}
