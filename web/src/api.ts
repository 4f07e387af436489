// The page's one connection to `baton serve`: BatonClient over the browser's WebSocket at
// /rpc (the HttpOnly cookie set by `?token=T` rides along), initialised as surface `web`.
// When the socket drops, every view hears `down`, the client reconnects with backoff, and
// views hear `up` again to re-read and to re-subscribe from the last seq they saw.
import { BatonClient, BatonRpcError } from '../../src/client/index.ts';

export type Client = BatonClient;
export type ConnState = 'connecting' | 'up' | 'down';

type Listener = (s: ConnState) => void;

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
    const c = await BatonClient.connect(rpcUrl());
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
  void open();
}

/** The text a refusal shows: baton's code and message (server.md's error data). */
export function describeError(e: unknown): { code: string; message: string } {
  if (e instanceof BatonRpcError) return { code: e.batonCode, message: e.data?.message ?? e.message };
  return { code: 'ERROR', message: e instanceof Error ? e.message : String(e) };
}
