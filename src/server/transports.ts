// The two transports of `baton serve` in front of the one dispatcher: stdio (one JSON object
// a line on stdin/stdout, logs on stderr) and HTTP with a WebSocket at /rpc (one message a
// frame). Both bound what they hold: a message over MAX_MESSAGE_BYTES is answered with an
// error and dropped (the connection stays usable); a client that sends faster than it reads
// is paused until what we sent it drains; requests of one connection run one at a time.
// The HTTP server is a route table so later surfaces (POST /mcp) add a route, not a server.
import * as fs from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocket, WebSocketServer } from 'ws';
import { createJSONRPCErrorResponse } from 'json-rpc-2.0';
import { CLEAR_COOKIE, WS_PROTOCOL, authenticate } from './auth.ts';
import { type Connection, type Dispatcher, INTERNAL_ERROR, INVALID_REQUEST, closeConnection, newConnection } from './dispatcher.ts';

export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Past this, a WebSocket frame is not even read: ws closes the connection (1009). */
export const HARD_FRAME_BYTES = 16 * 1024 * 1024;
/** Outbound bytes a client may leave unread before we stop reading from it. */
export const HIGH_WATER = 1024 * 1024;
/** Requests of one connection waiting their turn before we stop reading from it. */
const MAX_QUEUED = 32;

const tooLarge = (bytes: number): string =>
  JSON.stringify(createJSONRPCErrorResponse(null, INVALID_REQUEST, `message too large: ${bytes} bytes (limit ${MAX_MESSAGE_BYTES})`, { limit: MAX_MESSAGE_BYTES }));

/** Runs a connection's messages one at a time, pausing its input while the queue is long. */
function serialQueue(dispatcher: Dispatcher, conn: Connection, reply: (s: string) => void, pause: () => void, resume: () => void) {
  let chain: Promise<void> = Promise.resolve();
  let queued = 0;
  return (text: string): void => {
    queued++;
    if (queued > MAX_QUEUED) pause();
    chain = chain.then(async () => {
      try {
        let out: string | null;
        try {
          out = await dispatcher.handle(text, conn);
        } catch (e) {
          // Whatever one message does, the server answers and stays up (a RangeError of a huge reply, say).
          out = JSON.stringify(createJSONRPCErrorResponse(null, INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`));
        }
        if (out !== null && !conn.state.closed) reply(out);
        await conn.drained();
      } catch {
        // A reply the transport could not take: the connection goes on with the next message.
      } finally {
        queued--;
        if (queued <= MAX_QUEUED / 2) resume();
      }
    });
  };
}

// --- stdio ----------------------------------------------------------------------------

export function serveStdio(dispatcher: Dispatcher, input: NodeJS.ReadableStream & { pause(): void; resume(): void }, output: NodeJS.WritableStream & { writableLength: number }, onEnd: () => void): Connection {
  const waiters: (() => void)[] = [];
  output.on('drain', () => {
    for (const w of waiters.splice(0)) w();
  });
  // The client closed its end of our stdout (EPIPE): it reads nothing more, so the connection
  // ends as if stdin had (subscriptions dropped, nothing more written), never an unhandled error.
  let ended = false;
  let broken = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    closeConnection(conn);
    onEnd();
  };
  output.on('error', () => {
    broken = true;
    end();
    (input as { destroy?: () => void }).destroy?.();
  });
  // Replies to what came before stdin's end are still written; nothing is once stdout broke.
  const write = (s: string): void => {
    if (!broken) output.write(s);
  };
  const conn = newConnection({
    send: (m) => {
      write(`${m}\n`);
    },
    sendAll: (ms) => {
      if (ms.length) write(`${ms.join('\n')}\n`);
    },
    drained: () => (output.writableLength <= HIGH_WATER || conn.state.closed ? Promise.resolve() : new Promise((r) => waiters.push(r))),
    pressed: () => output.writableLength > HIGH_WATER,
  });
  conn.onClose.push(() => {
    for (const w of waiters.splice(0)) w();
  });
  let paused = false;
  const push = serialQueue(
    dispatcher,
    conn,
    (s) => write(`${s}\n`),
    () => {
      if (!paused) input.pause();
      paused = true;
    },
    () => {
      if (paused) input.resume();
      paused = false;
    },
  );
  // Lines are cut from chunks without ever holding more than one line past the limit.
  let parts: Buffer[] = [];
  let held = 0;
  let dropping = 0;
  const line = (b: Buffer): void => {
    const text = b.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    push(text);
  };
  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (dropping) dropping += piece.length;
      else if (held + piece.length > MAX_MESSAGE_BYTES) {
        dropping = held + piece.length;
        parts = [];
        held = 0;
      } else {
        parts.push(Buffer.from(piece));
        held += piece.length;
      }
      if (nl < 0) break;
      if (dropping) {
        write(`${tooLarge(dropping)}\n`);
        dropping = 0;
      } else {
        const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
        parts = [];
        held = 0;
        line(whole);
      }
      start = nl + 1;
    }
  });
  input.on('end', () => {
    if (held && !dropping && !broken) line(Buffer.concat(parts));
    end();
  });
  return conn;
}

// --- HTTP + WebSocket -------------------------------------------------------------------

export type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface HttpOptions {
  host: string;
  port: number;
  token: string;
  /** Folder of the built web page (dist/web); a placeholder page when it has no index.html. */
  webRoot: string;
  version: string;
  log: (line: string) => void;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The web page's Content-Security-Policy: its own files and its own server only. */
export const WEB_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>baton</title></head>
<body><main><h1>baton serve</h1>
<p>The web page is not built yet. The JSON-RPC endpoint is the WebSocket at <code>/rpc</code>;
see docs/server.md.</p></main></body></html>
`;

function json(res: ServerResponse, status: number, body: unknown): undefined {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

export class HttpServer {
  readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly routes = new Map<string, Route>();
  readonly connections = new Set<WebSocket>();
  private origins = new Set<string>();
  private readonly prefixes: ((req: IncomingMessage, res: ServerResponse, url: URL) => boolean)[] = [];

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly o: HttpOptions,
  ) {
    this.server = createServer((req, res) => void this.request(req, res));
    // A browser offers `baton` and `baton.token.<T>`: the server selects `baton` (never echoes the token).
    this.wss = new WebSocketServer({ noServer: true, maxPayload: HARD_FRAME_BYTES, handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false) });
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    this.route('GET', '/healthz', (_req, res) => json(res, 200, { ok: true, version: o.version, pid: process.pid }));
    this.route('GET', '/', (req, res, url) => this.web(req, res, url));
    // POST /mcp is the MCP endpoint's (mcp.md): a later surface adds it with route('POST', '/mcp', ...).
  }

  /** Adds a route (exact path; '/' also serves the web page's files). Every route sits behind the token. */
  route(method: string, path: string, handler: Route): void {
    this.routes.set(`${method} ${path}`, handler);
  }

  /** Adds a GET handler tried before the web page's files; it returns false for a path it does not serve. */
  getPrefix(handler: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean): void {
    this.prefixes.push(handler);
  }

  listen(): Promise<{ port: number }> {
    return new Promise((ok, ko) => {
      this.server.once('error', ko);
      this.server.listen(this.o.port, this.o.host, () => {
        const addr = this.server.address();
        const port = typeof addr === 'object' && addr ? addr.port : this.o.port;
        const hosts = new Set(['127.0.0.1', 'localhost', '[::1]', this.o.host.includes(':') ? `[${this.o.host}]` : this.o.host]);
        this.origins = new Set([...hosts].map((h) => `http://${h}:${port}`));
        ok({ port });
      });
    });
  }

  private async request(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return json(res, 400, { error: 'bad request' });
    }
    const how = authenticate(req, url, this.o.token);
    const exact = this.routes.get(`${req.method} ${url.pathname}`);
    // The page's own files (the built code, no store content) need no token: the page reads
    // it from its address (?token=T, then drops it) and sends it on the WebSocket itself.
    if (!how && req.method === 'GET' && (!exact || url.pathname === '/') && this.isPageFile(url)) return this.web(req, res, url);
    if (!how) {
      res.setHeader('www-authenticate', 'Bearer');
      return json(res, 401, { error: 'unauthorized: send the token of <home>/server.token (Authorization: Bearer T; the page takes ?token=T)' });
    }
    if (!exact && req.method === 'GET') {
      try {
        for (const p of this.prefixes) if (p(req, res, url)) return;
      } catch (e) {
        this.o.log(`request GET ${url.pathname} failed: ${e instanceof Error ? e.message : String(e)}`);
        if (!res.headersSent) json(res, 500, { error: 'internal error' });
        return;
      }
    }
    const handler = exact ?? (req.method === 'GET' && !url.pathname.startsWith('/rpc') ? this.routes.get('GET /') : undefined);
    if (!handler) {
      const known = [...this.routes.keys()].some((k) => k.endsWith(` ${url.pathname}`));
      return json(res, known ? 405 : 404, { error: known ? 'method not allowed' : 'not found' });
    }
    try {
      await handler(req, res, url);
    } catch (e) {
      this.o.log(`request ${req.method} ${url.pathname} failed: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.destroy();
    }
  }

  /** Whether GET url is the page ('/') or one of its built files (never a store path: those are not under webRoot). */
  private isPageFile(url: URL): boolean {
    if (url.pathname === '/') return true;
    if (url.pathname.startsWith('/rpc') || url.pathname.startsWith('/artifacts/') || url.pathname.startsWith('/contexts/')) return false;
    try {
      const root = resolve(this.o.webRoot);
      const file = join(root, normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, ''));
      return file.startsWith(root + sep) && fs.statSync(file).isFile();
    } catch {
      return url.pathname.includes('%');
    }
  }

  /** GET /: the built web page's files when dist/web has them, else a short placeholder. */
  private web(_req: IncomingMessage, res: ServerResponse, url: URL): undefined {
    // The token may be in this address: no referrer carries it on, and the cookie of an earlier version goes.
    res.setHeader('referrer-policy', 'no-referrer');
    if (url.pathname === '/') res.setHeader('set-cookie', CLEAR_COOKIE);
    res.setHeader('cache-control', 'no-store');
    // The page shows what agents wrote: should a renderer ever let markup through, no script but
    // the page's own runs, nothing loads from elsewhere, and no other site frames it.
    res.setHeader('content-security-policy', WEB_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('x-frame-options', 'DENY');
    const root = resolve(this.o.webRoot);
    let decoded: string;
    try {
      decoded = decodeURIComponent(url.pathname);
    } catch {
      return json(res, 400, { error: 'bad request: a malformed percent-escape in the path' });
    }
    const rel = url.pathname === '/' ? 'index.html' : normalize(decoded).replace(/^[/\\]+/, '');
    const file = join(root, rel);
    if (file !== root && !file.startsWith(root + sep)) return json(res, 404, { error: 'not found' });
    try {
      const body = fs.readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length });
      return void res.end(body);
    } catch {}
    if (url.pathname !== '/') return json(res, 404, { error: 'not found' });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(PLACEHOLDER) });
    res.end(PLACEHOLDER);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): undefined {
    const refuse = (status: number, text: string): undefined => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return refuse(400, 'Bad Request');
    }
    if (!authenticate(req, url, this.o.token)) return refuse(401, 'Unauthorized');
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.has(origin)) return refuse(403, 'Forbidden');
    if (url.pathname !== '/rpc') return refuse(404, 'Not Found');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connect(ws, req, socket));
  }

  /** `socket` is the one ws writes to: corked around a batch, its frames leave in one write. */
  private connect(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    this.connections.add(ws);
    const remote = req.socket.remoteAddress ?? '';
    const peer = isLoopback(remote) ? 'local' : remote;
    const conn = newConnection(
      {
        send: (m) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(m);
        },
        sendAll: (ms) => {
          if (ws.readyState !== WebSocket.OPEN) return;
          socket.cork();
          try {
            for (const m of ms) ws.send(m);
          } finally {
            socket.uncork();
          }
        },
        drained: async () => {
          while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > HIGH_WATER) await new Promise((r) => setTimeout(r, 5));
        },
        pressed: () => ws.readyState === WebSocket.OPEN && ws.bufferedAmount > HIGH_WATER,
      },
      peer,
    );
    let paused = false;
    const push = serialQueue(
      this.dispatcher,
      conn,
      (s) => conn.send(s),
      () => {
        if (!paused) ws.pause();
        paused = true;
      },
      () => {
        if (paused && ws.readyState === WebSocket.OPEN) ws.resume();
        paused = false;
      },
    );
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const size = data.length;
      if (size > MAX_MESSAGE_BYTES) return conn.send(tooLarge(size));
      push(isBinary ? data.toString('utf8') : data.toString('utf8'));
    });
    ws.on('close', () => {
      this.connections.delete(ws);
      closeConnection(conn);
    });
    ws.on('error', () => ws.terminate());
  }

  close(): Promise<void> {
    for (const ws of this.connections) ws.close(1001, 'server shutting down');
    return new Promise((r) => {
      this.wss.close();
      this.server.close(() => r());
      setTimeout(() => {
        for (const ws of this.connections) ws.terminate();
        this.server.closeAllConnections?.();
      }, 500).unref();
    });
  }
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').replace(/^::ffff:/, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
