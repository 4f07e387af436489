// Backpressure for `baton mcp` on stdio (docs/mcp.md, Limits). The SDK's stdio transport
// handles every request as it arrives and writes every answer at once: a client that keeps
// sending (say, twenty `session_log` calls of 1 MiB pages) and stops reading would have the
// server hold all their answers in memory. Here at most MAX_IN_FLIGHT requests are being
// answered at a time, and none more is read while the answers not yet taken by the client are
// over HIGH_WATER bytes: stdin is then left unread, and the client's own writes block.
// The answers are counted on the way out (every line the transport writes passes the
// OutboundLines stream), so an answer written by any path of the SDK frees its request's slot.
import { Transform, type TransformCallback, Writable } from 'node:stream';

export const MAX_IN_FLIGHT = 16;
export const HIGH_WATER = 8 * 1024 * 1024;

/** A request's id as a key (`number:3`, `string:a`), or null for a notification, an answer or a line that is not JSON. */
function requestKey(line: Buffer | string): string | null {
  let m: unknown;
  try {
    m = JSON.parse(typeof line === 'string' ? line : line.toString('utf8'));
  } catch {
    return null;
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) return null;
  const o = m as Record<string, unknown>;
  if (typeof o.method !== 'string' || !('id' in o) || (typeof o.id !== 'number' && typeof o.id !== 'string')) return null;
  return `${typeof o.id}:${o.id}`;
}

/** The id key of an answer line (`result` or `error` with an id), else null. */
function answerKey(line: string): string | null {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return null;
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) return null;
  const o = m as Record<string, unknown>;
  if (!('result' in o || 'error' in o) || (typeof o.id !== 'number' && typeof o.id !== 'string')) return null;
  return `${typeof o.id}:${o.id}`;
}

/** What goes to the client: each line passed on to `sink`, its answer counted, its bytes pending until the sink took them. */
export class OutboundLines extends Writable {
  /** Called as each line is taken by the sink, with its answer's key (null for any other line). */
  onTaken: (key: string | null) => void = () => {};

  constructor(private readonly sink: NodeJS.WritableStream) {
    // What this stream can hold is bounded by the gate: HIGH_WATER unread, plus the answers of the
    // requests in flight (a session_log page of 1 MiB is ~2 MiB of JSON: its text and its
    // structured content). Its mark sits above that, so the SDK's write of an answer returns true
    // and it never waits for a 'drain' that, under steady load, may not come for a while (one
    // 'error' and one 'drain' listener kept per answer written meanwhile).
    super({ highWaterMark: HIGH_WATER + MAX_IN_FLIGHT * 4 * 1024 * 1024 });
    this.setMaxListeners(MAX_IN_FLIGHT * 4);
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const key = text.includes('"id"') ? answerKey(text) : null;
    this.sink.write(chunk, (e) => {
      done(e ?? null);
      // Counted once the client's pipe took it: until then it is what the high-water mark measures.
      this.onTaken(key);
    });
  }
}

/** Lets a request line through only while fewer than MAX_IN_FLIGHT are being answered and the unread answers are under HIGH_WATER. */
export class FlowGate extends Transform {
  private readonly inFlight = new Set<string>();
  private held: (() => void) | null = null;

  constructor(
    private readonly out: OutboundLines,
    private readonly maxInFlight = MAX_IN_FLIGHT,
    private readonly highWater = HIGH_WATER,
  ) {
    super();
    out.onTaken = (key) => {
      if (key) this.inFlight.delete(key);
      this.release();
    };
  }

  private open(): boolean {
    return this.inFlight.size < this.maxInFlight && this.out.writableLength <= this.highWater;
  }

  private release(): void {
    if (this.held && this.open()) {
      const go = this.held;
      this.held = null;
      go();
    }
  }

  override _transform(line: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const key = requestKey(line);
    const go = (): void => {
      if (key) this.inFlight.add(key);
      this.push(line);
      done();
    };
    if (key === null || this.open()) go();
    else this.held = go;
  }
}
