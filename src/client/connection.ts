// The transport half of `baton/client`: JSON-RPC 2.0 requests, responses and notifications
// over a WebSocket (browser or Node's `ws`) or over the stdio of a spawned `baton serve
// --stdio`. Hand-written; the typed methods are generated (protocol.gen.ts). No Node-only
// module is imported at the top, so a browser bundle can use the WebSocket half.

/** A JSON-RPC error answer. For a baton refusal (code -32000) data.code is baton's code (WS101 ...). */
export class BatonRpcError extends Error {
  readonly code: number;
  readonly data: { code?: string; message?: string; details?: Record<string, unknown>; [k: string]: unknown } | undefined;
  constructor(code: number, message: string, data?: BatonRpcError['data']) {
    super(message);
    this.name = 'BatonRpcError';
    this.code = code;
    this.data = data;
  }
  /** baton's code of a refusal (data.code), else the JSON-RPC code as a string. */
  get batonCode(): string {
    return typeof this.data?.code === 'string' ? this.data.code : String(this.code);
  }
}

/** What a connection needs from a transport: send a text message, hear messages and the close. */
export interface Transport {
  send(text: string): void;
  onMessage(cb: (text: string) => void): void;
  onClose(cb: (reason: string) => void): void;
  close(): void;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** Minimal shape of a WebSocket (the browser's or `ws`'s). */
interface WebSocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code?: number; reason?: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export interface WebSocketOptions {
  /** The token of <home>/server.token (sent as the subprotocol `baton.token.<T>`). */
  token?: string;
  /** A WebSocket class (in Node 20: `import WebSocket from 'ws'`); default globalThis.WebSocket. */
  WebSocket?: WebSocketConstructor;
}

export interface SpawnOptions {
  /** Default `baton`; e.g. process.execPath with args [path/to/bin/baton.cjs, ...]. */
  command?: string;
  /** Default ['serve', '--stdio']. */
  args?: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export function webSocketTransport(url: string, opts: WebSocketOptions = {}): Promise<Transport> {
  const WS = opts.WebSocket ?? (globalThis as unknown as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!WS) throw new Error('no WebSocket class: pass opts.WebSocket (e.g. the ws package)');
  // The token rides as a WebSocket subprotocol (`baton.token.<T>`, beside `baton`, which the
  // server selects): what a browser can send, and never in a URL or a log line.
  const ws = opts.token ? new WS(url, ['baton', `baton.token.${opts.token}`]) : new WS(url);
  const listeners: ((t: string) => void)[] = [];
  const closers: ((r: string) => void)[] = [];
  return new Promise((resolve, reject) => {
    ws.onopen = () =>
      resolve({
        send: (t) => ws.send(t),
        onMessage: (cb) => listeners.push(cb),
        onClose: (cb) => closers.push(cb),
        close: () => ws.close(1000),
      });
    ws.onerror = (e) => reject(new Error(`WebSocket to ${url} failed: ${(e as { message?: string })?.message ?? 'connection error'}`));
    ws.onmessage = (ev) => {
      const text = typeof ev.data === 'string' ? ev.data : String(ev.data);
      for (const l of listeners) l(text);
    };
    ws.onclose = (ev) => {
      for (const c of closers) c(`closed ${ev.code ?? ''} ${String(ev.reason ?? '')}`.trim());
      reject(new Error(`WebSocket to ${url} closed (${ev.code ?? '?'})`));
    };
  });
}

export async function stdioTransport(opts: SpawnOptions = {}): Promise<Transport & { stderr: () => string; pid: number | undefined }> {
  const { spawn } = await import('node:child_process');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  const child = spawn(opts.command ?? 'baton', opts.args ?? ['serve', '--stdio'], { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const listeners: ((t: string) => void)[] = [];
  const closers: ((r: string) => void)[] = [];
  let err = '';
  let buf = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-65536);
  });
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) for (const l of listeners) l(line);
    }
  });
  child.on('close', (code) => {
    for (const c of closers) c(`baton serve exited (${code})`);
  });
  child.stdin.on('error', () => {});
  return {
    send: (t) => child.stdin.write(`${t}\n`),
    onMessage: (cb) => listeners.push(cb),
    onClose: (cb) => closers.push(cb),
    close: () => child.stdin.end(),
    stderr: () => err,
    pid: child.pid,
  };
}

/** JSON-RPC 2.0 over a transport: request/response by id, notifications by method. */
export class RpcConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Set<(params: unknown) => void>>();
  closed: string | null = null;

  constructor(readonly transport: Transport) {
    transport.onMessage((t) => this.receive(t));
    transport.onClose((reason) => {
      this.closed = reason;
      for (const p of this.pending.values()) p.reject(new Error(`connection closed: ${reason}`));
      this.pending.clear();
    });
  }

  /** Connects over a WebSocket (ws://host:port/rpc). */
  static async connect<T extends RpcConnection>(this: new (t: Transport) => T, url: string, opts: WebSocketOptions = {}): Promise<T> {
    return new this(await webSocketTransport(url, opts));
  }

  /** Spawns `baton serve --stdio` and talks to it over its stdin/stdout (Node only). */
  static async spawn<T extends RpcConnection>(this: new (t: Transport) => T, opts: SpawnOptions = {}): Promise<T> {
    return new this(await stdioTransport(opts));
  }

  request(method: string, params?: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`connection closed: ${this.closed}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.transport.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  notify(method: string, params?: unknown): void {
    this.transport.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
  }

  onNotification(method: string, cb: (params: unknown) => void): () => void {
    const set = this.handlers.get(method) ?? new Set();
    this.handlers.set(method, set);
    set.add(cb);
    return () => set.delete(cb);
  }

  close(): void {
    this.transport.close();
  }

  private receive(text: string): void {
    let msg: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { code: number; message: string; data?: BatonRpcError['data'] } };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (typeof m.method === 'string') {
        for (const h of this.handlers.get(m.method) ?? []) h(m.params);
        continue;
      }
      const p = typeof m.id === 'number' ? this.pending.get(m.id) : undefined;
      if (!p) continue;
      this.pending.delete(m.id as number);
      if (m.error) p.reject(new BatonRpcError(m.error.code, m.error.message, m.error.data));
      else p.resolve(m.result);
    }
  }
}
