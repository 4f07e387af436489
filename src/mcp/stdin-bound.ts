// The bound on what `baton mcp` reads from its stdin (docs/mcp.md, Limits): the MCP stdio
// transport is one JSON message a line. A line over MAX_STDIO_MESSAGE_BYTES is never held
// whole: it is dropped as it streams in, one `baton mcp: INPUT_TOO_LARGE ...` line goes to
// stderr, and when the line carries a request's id where clients write it (first after
// "jsonrpc", or last), that id gets a JSON-RPC error
// (so the client's call fails at once instead of waiting). Every other line passes through
// unchanged, and the server keeps serving (the SDK's own buffer limit would otherwise
// close the transport and end the process with exit 0, silently).
// Invariant: at most MAX_STDIO_MESSAGE_BYTES of one line is held at a time, and a line
// reaches the transport whole or not at all.
import { Transform, type TransformCallback } from 'node:stream';

export const MAX_STDIO_MESSAGE_BYTES = 4 * 1024 * 1024;
/** How much of a dropped line is kept to find its id. */
const HEAD_BYTES = 256;
/** The id as the first member after "jsonrpc" (`{"jsonrpc":"2.0","id":...`). */
const HEAD_ID_RE = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,128}")\s*,/;
/** The id as the last member, closing the object (`...,"jsonrpc":"2.0","id":3}`, how the SDK's client writes). */
const TAIL_ID_RE = /,\s*"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,128}")\s*\}\s*$/;

export interface Dropped {
  bytes: number;
  /** The request's id when the line begins or ends with it as a top-level member. */
  id: number | string | null;
}

/** The JSON-RPC error answering a dropped request. */
export function tooLargeAnswer(d: Dropped, limit = MAX_STDIO_MESSAGE_BYTES): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: d.id,
    error: { code: -32600, message: `INPUT_TOO_LARGE: a message of ${d.bytes} bytes or more (limit ${limit}); dropped, nothing done`, data: { code: 'INPUT_TOO_LARGE', limit } },
  });
}

/** Passes complete lines up to `limit` bytes; calls onDrop for each longer line, which never passes. */
export class LineBound extends Transform {
  /** The pieces of the line being read (a line passes only whole). */
  private line: Buffer[] = [];
  private held = 0;
  private dropping = false;
  private dropped = 0;
  private head: Buffer[] = [];
  private headBytes = 0;
  /** The last HEAD_BYTES of the line being dropped. */
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly onDrop: (d: Dropped) => void,
    private readonly limit = MAX_STDIO_MESSAGE_BYTES,
  ) {
    super();
  }

  private keepHead(piece: Buffer): void {
    if (this.headBytes >= HEAD_BYTES) return;
    const part = piece.subarray(0, HEAD_BYTES - this.headBytes);
    this.head.push(Buffer.from(part));
    this.headBytes += part.length;
  }

  private keepTail(piece: Buffer): void {
    const both = piece.length >= HEAD_BYTES ? piece.subarray(piece.length - HEAD_BYTES) : Buffer.concat([this.tail, piece]);
    this.tail = Buffer.from(both.subarray(Math.max(0, both.length - HEAD_BYTES)));
  }

  private finishDrop(): void {
    const tail = this.tail.toString('utf8').replace(/\r?\n$/, '');
    const m = HEAD_ID_RE.exec(Buffer.concat(this.head).toString('utf8')) ?? TAIL_ID_RE.exec(tail);
    this.tail = Buffer.alloc(0);
    const raw = m?.[1];
    const id = raw === undefined ? null : raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
    this.onDrop({ bytes: this.dropped, id });
    this.dropping = false;
    this.dropped = 0;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      if (this.held === 0 && !this.dropping) {
        this.head = [];
        this.headBytes = 0;
      }
      this.keepHead(piece);
      if (this.dropping) {
        this.dropped += piece.length;
        this.keepTail(piece);
      } else if (this.held + piece.length - (nl < 0 ? 0 : 1) > this.limit) {
        this.dropping = true;
        this.dropped = this.held + piece.length;
        this.tail = Buffer.alloc(0);
        this.keepTail(piece);
        this.line = [];
        this.held = 0;
      } else {
        this.line.push(Buffer.from(piece));
        this.held += piece.length;
      }
      if (nl < 0) break;
      if (this.dropping) this.finishDrop();
      else this.push(this.line.length === 1 ? this.line[0] : Buffer.concat(this.line));
      this.line = [];
      this.held = 0;
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.dropping) this.finishDrop();
    else if (this.held) this.push(Buffer.concat(this.line));
    done();
  }
}
