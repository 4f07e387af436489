// The one JSON-RPC 2.0 dispatcher behind every transport of `baton serve` (stdio and
// WebSocket): a message in, a response out, notifications through the connection.
// Source of truth: none here — every method calls the operation layer (src/ops) and the
// store and index APIs. A refusal is a -32000 error whose data carries baton's code; it is
// decided before anything is written, by the same rules the CLI runs.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type JSONRPCErrorResponse, JSONRPCErrorException, type JSONRPCResponse, JSONRPCServer, createJSONRPCErrorResponse } from 'json-rpc-2.0';
import type { z } from 'zod';
import { BatonError } from '../core/errors.ts';
import { MAX_PAGE_BYTES, METHODS, type MethodName, PROTOCOL_VERSION } from '../schemas/protocol.ts';
import type { Writer } from '../store/store.ts';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const REFUSED = -32000;

/** What one client connection is: its transport's outlet and what initialize said. */
export interface Connection {
  /** Sends one JSON-RPC message (a notification) to the client. */
  send(message: string): void;
  /** Sends several messages in order, handed to the socket as one write (a subscription's batch). */
  sendAll(messages: string[]): void;
  /** Resolves when the client has read enough of what was sent (backpressure). */
  drained(): Promise<void>;
  /** Whether the client has left more than the transport's high-water mark unread right now. */
  pressed(): boolean;
  /** Where the client is: 'local' for stdio and loopback, else its address. */
  peer: string;
  state: { phase: 'new' | 'initializing' | 'ready'; writer: Writer | null; surface: string | null; closed: boolean };
  /** Runs when the connection closes (subscriptions end). */
  onClose: (() => void)[];
}

/** A transport's side of a connection. */
export type Outlet = Pick<Connection, 'send' | 'sendAll' | 'drained' | 'pressed'>;

export function newConnection(outlet: Outlet, peer = 'local'): Connection {
  return { ...outlet, peer, state: { phase: 'new', writer: null, surface: null, closed: false }, onClose: [] };
}

export function closeConnection(c: Connection): void {
  if (c.state.closed) return;
  c.state.closed = true;
  for (const f of c.onClose.splice(0)) {
    try {
      f();
    } catch {}
  }
}

export type Handler = (params: any, conn: Connection) => unknown;

/** The most elements a JSON-RPC batch may hold; a longer one is refused whole. */
export const MAX_BATCH = 100;
/** What the answers of one batch may weigh together (server.md: 1 MiB a response, plus the envelopes). */
export const MAX_BATCH_REPLY_BYTES = MAX_PAGE_BYTES + 64 * 1024;

function tooLargeReply(id: JSONRPCResponse['id'], ran: boolean): JSONRPCErrorResponse {
  const what = ran ? 'this call ran but its answer' : 'this call was not run: the answers before it';
  return createJSONRPCErrorResponse(id, REFUSED, `the batch's answers are over ${MAX_BATCH_REPLY_BYTES} bytes: ${what} did not fit; send it alone or in a smaller batch`, {
    code: 'BATCH_REPLY_TOO_LARGE',
    message: 'the batch reply is over its bound',
    details: { limit_bytes: MAX_BATCH_REPLY_BYTES, ran },
  });
}

/**
 * JSON text already encoded (events as their log lines): placed into the response as is
 * instead of being parsed into objects and encoded again. Encodes to a placeholder that
 * handle() swaps for the text.
 */
export class RawJson {
  private static next = 0;
  /** Per process, so no text a client wrote can name a pending placeholder. */
  private static readonly nonce = randomBytes(8).toString('hex');
  static readonly pending = new Map<string, string>();
  private readonly key: string;
  constructor(text: string) {
    this.key = `\u0000raw:${RawJson.nonce}:${RawJson.next++}`;
    RawJson.pending.set(this.key, text);
  }
  toJSON(): string {
    return this.key;
  }
}

/** Swaps RawJson placeholders in an encoded message for their text. */
function spliceRaw(text: string): string {
  if (RawJson.pending.size === 0) return text;
  return text.replace(/"\\u0000raw:([0-9a-f]+:\d+)"/g, (all, n: string) => {
    const key = `\u0000raw:${n}`;
    const raw = RawJson.pending.get(key);
    if (raw === undefined) return all;
    RawJson.pending.delete(key);
    return raw;
  });
}

export const refused = (e: BatonError): JSONRPCErrorException => {
  const { code: _c, message: _m, ...details } = e.toJSON();
  return new JSONRPCErrorException(e.message, REFUSED, { code: e.code, message: e.message, details });
};

function toErrorResponse(id: JSONRPCResponse['id'], error: unknown): JSONRPCErrorResponse {
  if (error instanceof JSONRPCErrorException) return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
  if (error instanceof BatonError) {
    const r = refused(error);
    return createJSONRPCErrorResponse(id, r.code, r.message, r.data);
  }
  const message = error instanceof Error ? error.message : String(error);
  const debug = process.env.BATON_DEBUG === '1' && error instanceof Error ? { stack: error.stack } : undefined;
  return createJSONRPCErrorResponse(id, INTERNAL_ERROR, `internal error: ${message.split('\n')[0]}`, debug);
}

function invalidParams(method: string, err: z.ZodError): JSONRPCErrorException {
  const issues = err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = issues[0];
  return new JSONRPCErrorException(`invalid params for ${method}: ${first ? `${first.path || '(params)'}: ${first.message}` : 'rejected'}`, INVALID_PARAMS, { issues });
}

export interface ServerInfo {
  version: string;
}

/** Methods whose params go to the operation unparsed: the operation's own request parser decides (pointer.md's receipts). */
const RAW_PARAMS = new Set<MethodName>(['pointer/publish']);

/**
 * The dispatcher: validates the envelope and params, enforces initialize first, runs the
 * handler, maps errors. `handlers` holds one function per method of METHODS.
 */
export class Dispatcher {
  private readonly rpc = new JSONRPCServer<Connection>({ errorListener: () => {} });

  constructor(info: ServerInfo, handlers: Record<Exclude<MethodName, 'initialize'>, Handler>) {
    this.rpc.mapErrorToJSONRPCErrorResponse = toErrorResponse;
    this.rpc.addMethod('initialize', (params: unknown, conn: Connection) => {
      if (conn.state.phase !== 'new') throw new JSONRPCErrorException('initialize was already called on this connection', INVALID_REQUEST);
      const parsed = METHODS.initialize.params.safeParse(params ?? {});
      if (!parsed.success) throw invalidParams('initialize', parsed.error);
      const surface = parsed.data.surface ?? 'api';
      const host = conn.peer === 'local' ? hostname() : conn.peer;
      const instanceId = `${surface}@${parsed.data.clientInfo.name}@${host}`;
      conn.state.writer = { surface, instanceId, actor: 'user' };
      conn.state.surface = surface;
      conn.state.phase = 'initializing';
      return {
        serverInfo: { name: 'baton', version: info.version },
        protocolVersion: PROTOCOL_VERSION,
        instanceId,
        capabilities: { methods: Object.keys(METHODS), notifications: ['event/appended'] },
      };
    });
    this.rpc.addMethod('initialized', (_params: unknown, conn: Connection) => {
      if (conn.state.phase === 'initializing') conn.state.phase = 'ready';
      return null;
    });
    for (const [name, handler] of Object.entries(handlers) as [MethodName, Handler][]) {
      const schema = METHODS[name].params;
      this.rpc.addMethod(name, (params: unknown, conn: Connection) => {
        if (conn.state.phase !== 'ready') {
          throw new JSONRPCErrorException('initialize first: send initialize, then the initialized notification', REFUSED, {
            code: 'NOT_INITIALIZED',
            message: 'initialize first',
            details: {},
          });
        }
        if (RAW_PARAMS.has(name)) return handler(params, conn);
        const parsed = schema.safeParse(params ?? {});
        if (!parsed.success) throw invalidParams(name, parsed.error);
        return handler(parsed.data, conn);
      });
    }
  }

  /** One message (a line or a frame) in; the response text out, or null (notifications). */
  async handle(text: string, conn: Connection): Promise<string | null> {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return JSON.stringify(createJSONRPCErrorResponse(null, PARSE_ERROR, 'parse error: not JSON'));
    }
    if (Array.isArray(msg)) return this.batch(msg, conn);
    const r = await this.one(msg, conn);
    return r ? spliceRaw(JSON.stringify(r)) : null;
  }

  /**
   * A batch: at most MAX_BATCH elements (else one error, nothing run), run one after the
   * other, their answers together at most MAX_BATCH_REPLY_BYTES (server.md's 1 MiB a
   * response holds for the batch as a whole). The first answer is always sent, as a single
   * call's would be; an answer that would pass the bound is replaced by BATCH_REPLY_TOO_LARGE
   * (`ran: true`: the call ran, its result was not sent), and the elements after it are not
   * run (`ran: false`). Each answer is encoded alone, so a batch never builds one huge string.
   */
  private async batch(msg: unknown[], conn: Connection): Promise<string | null> {
    if (msg.length === 0) return JSON.stringify(createJSONRPCErrorResponse(null, INVALID_REQUEST, 'invalid request: an empty batch'));
    if (msg.length > MAX_BATCH) {
      return JSON.stringify(
        createJSONRPCErrorResponse(null, INVALID_REQUEST, `invalid request: a batch of ${msg.length} elements (limit ${MAX_BATCH}); nothing was run`, {
          code: 'BATCH_TOO_LARGE',
          limit: MAX_BATCH,
        }),
      );
    }
    const out: string[] = [];
    let bytes = 2;
    let full = false;
    for (const m of msg) {
      if (full) {
        const id = m && typeof m === 'object' && !Array.isArray(m) ? (m as { id?: unknown }).id : undefined;
        if (typeof id === 'string' || typeof id === 'number') out.push(JSON.stringify(tooLargeReply(id, false)));
        continue;
      }
      const r = await this.one(m, conn);
      if (r === null) continue;
      let text = spliceRaw(JSON.stringify(r));
      const size = Buffer.byteLength(text) + 1;
      if (out.length > 0 && bytes + size > MAX_BATCH_REPLY_BYTES) {
        full = true;
        text = JSON.stringify(tooLargeReply(r.id, true));
      }
      bytes += size;
      out.push(text);
    }
    return out.length ? `[${out.join(',')}]` : null;
  }

  private async one(m: unknown, conn: Connection): Promise<JSONRPCResponse | null> {
    if (!m || typeof m !== 'object' || Array.isArray(m)) return createJSONRPCErrorResponse(null, INVALID_REQUEST, 'invalid request: not an object');
    const o = m as Record<string, unknown>;
    const id = typeof o.id === 'string' || typeof o.id === 'number' || o.id === null ? o.id : null;
    // A response from the client (we send no requests) is ignored.
    if (o.jsonrpc === '2.0' && o.method === undefined && ('result' in o || 'error' in o)) return null;
    if (o.jsonrpc !== '2.0' || typeof o.method !== 'string' || ('id' in o && id === null && o.id !== null)) {
      return createJSONRPCErrorResponse(id, INVALID_REQUEST, 'invalid request: needs jsonrpc "2.0", a string method and a string or number id');
    }
    if (o.params !== undefined && (o.params === null || typeof o.params !== 'object')) {
      return 'id' in o ? createJSONRPCErrorResponse(id, INVALID_PARAMS, 'invalid params: params must be an object') : null;
    }
    if (!this.rpc.hasMethod(o.method)) return 'id' in o ? createJSONRPCErrorResponse(id, METHOD_NOT_FOUND, `method not found: ${o.method}`) : null;
    return (await this.rpc.receive(o as never, conn)) as JSONRPCResponse | null;
  }
}
