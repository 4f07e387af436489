// event/subscribe: every event appended to a session by any process (hooks, the CLI,
// another server), delivered once, in seq order, with no gap. Source of truth: the log.
// One tail reader per watched session reads what the log grows by — once, checked against
// the chain once — and hands each page, already encoded, to every subscription that is
// caught up with it. A subscription that is behind (its replay gap, or a client slower than
// the log) reads on its own from its position (offset, seq, chain hash) until it has caught
// up, then joins the tail; seq decides what each one sends, so nothing is skipped or sent
// twice whatever the timing. How growth is noticed: one fs.watch per watched session folder
// (inotify/FSEvents: a wake-up within milliseconds of an append), plus a stat poll every
// POLL_MS as the fallback for file systems where watch events are lost or unsupported. The
// index feed (index.feed) is not used: it is a hint rotated by the index, one file for every
// session, so a watcher of it would wake for every append anywhere and still have to stat
// the log. A crash leaves nothing: nothing is written.
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../core/events.ts';
import { type LogPosition, type PositionCache, START, noteRedaction, readPage, redactionsOf, tailPosition } from '../ops/events.ts';
import { LOG_FILE } from '../store/log.ts';
import type { FsStore } from '../store/store.ts';
import type { Connection } from './dispatcher.ts';

export const POLL_MS = 500;
/** Bytes of events read per step (the tail's or a subscription's) before yielding and checking backpressure. */
const STEP_BYTES = 256 * 1024;

/** Events read from the log in one step, each with its JSON text as sent. */
interface Batch {
  events: StoredEvent[];
  texts: string[];
}

class Subscription {
  /** Fed by its session's tail; false while it reads on its own (catching up). */
  live = false;
  private catching = false;
  stopped = false;
  /** A chain or parse failure stops delivery (the log is corrupt, WS201); a repair does not restart it. */
  failed: string | null = null;
  /** The frame around an event, up to the event and after it. */
  private readonly head: string;

  constructor(
    readonly id: string,
    readonly threadId: string,
    private readonly tail: SessionTail,
    /** The last seq delivered (or the subscription's `after`). */
    private sent: number,
    /** Where its own reading continues: at or before the event after `sent`. */
    private pos: LogPosition,
    private readonly redactions: Map<number, string[]>,
    readonly conn: Connection,
  ) {
    this.head = `{"jsonrpc":"2.0","method":"event/appended","params":{"subscriptionId":${JSON.stringify(id)},"threadId":${JSON.stringify(threadId)},"event":`;
  }

  private get gone(): boolean {
    return this.stopped || this.conn.state.closed || this.failed !== null;
  }

  /**
   * A page the tail read: events after `from` (the tail's seq before it), the tail now at `to`.
   * Taken only when this subscription has everything up to `from` and its client keeps up;
   * otherwise it falls back to reading on its own, which never outruns what the client reads.
   */
  take(from: number, batch: Batch, to: LogPosition): void {
    if (!this.live || this.gone) return;
    if (this.sent < from || this.conn.pressed()) {
      this.live = false;
      void this.catchUp();
      return;
    }
    this.send(batch);
    if (this.sent === to.seq) this.pos = to;
  }

  /** The tail stopped at a corrupt line: a subscription it fed stops there too. */
  fail(reason: string): void {
    if (!this.live || this.gone) return;
    this.live = false;
    this.stop(reason);
  }

  /** Reads on its own from its position until it has caught up with the tail, then joins it. Wake-ups while it runs are no-ops. */
  async catchUp(): Promise<void> {
    if (this.catching || this.live) return;
    this.catching = true;
    try {
      for (;;) {
        if (this.gone) return;
        if (this.sent >= this.tail.seq && this.tail.failed === null) {
          // Nothing between what it sent and what the tail hands out next: it joins.
          this.live = true;
          return;
        }
        if (this.conn.pressed()) {
          await this.conn.drained();
          continue;
        }
        let size: number;
        try {
          size = fs.statSync(this.tail.path).size;
        } catch {
          return;
        }
        if (size < this.pos.offset) {
          // The log was cut below what we read (a repair quarantined a torn tail we never delivered
          // from: complete lines are never removed). Start over from the beginning; seq skips duplicates.
          this.pos = START;
        }
        if (size === this.pos.offset) return;
        const page = readPage(this.tail.path, this.pos, this.sent, STEP_BYTES, this.redactions);
        this.send({ events: page.events.map((e) => e.event), texts: page.events.map((e) => e.raw ?? JSON.stringify(e.event)) });
        this.pos = page.next;
        if (page.corrupt) return this.stop(`events log corrupt at seq ${page.corrupt.seq}: ${page.corrupt.reason}`);
        await this.conn.drained();
        if (!page.more && page.events.length === 0) return;
      }
    } finally {
      this.catching = false;
    }
  }

  /** Sends the events after `sent`, as one write. The text is the log line when unredacted: no re-encoding per subscriber. */
  private send(batch: Batch): void {
    const frames: string[] = [];
    for (let i = 0; i < batch.events.length; i++) {
      const ev = batch.events[i];
      if (ev.seq <= this.sent) continue;
      this.sent = ev.seq;
      noteRedaction(this.redactions, ev);
      frames.push(`${this.head}${batch.texts[i]}}}`);
    }
    if (frames.length) this.conn.sendAll(frames);
  }

  private stop(reason: string): void {
    this.failed = reason;
    process.stderr.write(`baton serve: subscription ${this.id} on ${this.threadId} stopped: ${this.failed} (WS201)\n`);
  }
}

/**
 * The one reader of a watched session's log: from where the log ended when the first
 * subscription came, it reads each growth once (a page at a time, yielding between pages),
 * checks it against the chain once, encodes each event once, and hands the page to every
 * subscription; those behind are kicked to read on their own.
 */
class SessionTail {
  readonly subs = new Set<Subscription>();
  watcher: fs.FSWatcher | null = null;
  /** The position after the last event read. */
  private pos: LogPosition;
  /** The last seq handed out (pos.seq, except while re-reading a log cut below pos). */
  seq: number;
  /** Set when a line fails the chain or does not parse: the tail reads no further. */
  failed: string | null = null;
  private redactions: Map<number, string[]>;
  private scheduled = false;

  constructor(
    readonly path: string,
    private readonly rules: () => Map<number, string[]>,
  ) {
    this.pos = tailPosition(path);
    this.seq = this.pos.seq;
    this.redactions = rules();
  }

  /** A failed tail starts again from the log's end when a new subscription comes (a repair may have mended the log). */
  restartIfFailed(): void {
    if (this.failed === null) return;
    this.failed = null;
    this.pos = tailPosition(this.path);
    this.seq = this.pos.seq;
    this.redactions = this.rules();
  }

  /** Coalesces the wake-ups of one turn of the event loop (one append raises several) into one read. */
  wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.step();
    });
  }

  private step(): void {
    if (this.subs.size === 0) return;
    for (const s of this.subs) if (!s.live) void s.catchUp();
    if (this.failed !== null) return;
    let size: number;
    try {
      size = fs.statSync(this.path).size;
    } catch {
      return;
    }
    if (size < this.pos.offset) this.pos = START; // cut below what we read (see catchUp); seq skips what was handed out
    if (size === this.pos.offset) return;
    const page = readPage(this.path, this.pos, this.seq, STEP_BYTES, this.redactions);
    const from = this.seq;
    this.pos = page.next;
    const batch: Batch = { events: [], texts: [] };
    for (const { event, raw } of page.events) {
      noteRedaction(this.redactions, event);
      batch.events.push(event);
      batch.texts.push(raw ?? JSON.stringify(event));
      this.seq = event.seq;
    }
    if (batch.events.length) for (const s of this.subs) s.take(from, batch, this.pos);
    if (page.corrupt) {
      this.failed = `events log corrupt at seq ${page.corrupt.seq}: ${page.corrupt.reason}`;
      for (const s of this.subs) s.fail(this.failed);
      return;
    }
    if (page.more) this.wake(); // the rest after other work has had its turn
  }
}

/** The subscriptions of one server: one tail (watcher and reader) per watched session. */
export class Subscriptions {
  private readonly tails = new Map<string, SessionTail>();
  private readonly byId = new Map<string, Subscription>();
  private next = 1;
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly store: FsStore,
    private readonly positions: PositionCache,
  ) {
    this.poll = setInterval(() => {
      for (const t of this.tails.values()) t.wake();
    }, POLL_MS);
    this.poll.unref();
  }

  /** Starts delivering events with seq > after (default: the last seq now). */
  subscribe(conn: Connection, threadId: string, after: number | undefined): { subscriptionId: string; threadId: string; after: number } {
    const dir = this.store.dir(threadId);
    const path = join(dir, LOG_FILE);
    const tail = this.tailOf(threadId, dir, path);
    const end = tailPosition(path);
    const from = after ?? end.seq;
    const start = after === undefined ? end : this.positions.before(threadId, after, end.offset);
    const id = `sub-${this.next++}`;
    const sub = new Subscription(id, threadId, tail, from, start, redactionsOf(this.store, threadId), conn);
    tail.subs.add(sub);
    this.byId.set(id, sub);
    conn.onClose.push(() => this.unsubscribe(id));
    // After the response has gone out: the first notifications follow it.
    setImmediate(() => void sub.catchUp());
    return { subscriptionId: id, threadId, after: from };
  }

  private tailOf(threadId: string, dir: string, path: string): SessionTail {
    const known = this.tails.get(threadId);
    if (known) {
      known.restartIfFailed();
      return known;
    }
    const tail = new SessionTail(path, () => redactionsOf(this.store, threadId));
    try {
      tail.watcher = fs.watch(dir, { persistent: false }, (_ev, name) => {
        if (name === null || name === LOG_FILE) tail.wake();
      });
      tail.watcher.on('error', () => {
        tail.watcher?.close();
        tail.watcher = null; // the poll carries on alone
      });
    } catch {
      tail.watcher = null;
    }
    this.tails.set(threadId, tail);
    return tail;
  }

  /** Whether the subscription existed (and was this connection's). */
  unsubscribe(id: string, conn?: Connection): boolean {
    const sub = this.byId.get(id);
    if (!sub) return false;
    if (conn && sub.conn !== conn) return false;
    sub.stopped = true;
    this.byId.delete(id);
    const tail = this.tails.get(sub.threadId);
    if (tail) {
      tail.subs.delete(sub);
      if (tail.subs.size === 0) {
        tail.watcher?.close();
        this.tails.delete(sub.threadId);
      }
    }
    return true;
  }

  get size(): number {
    return this.byId.size;
  }

  close(): void {
    clearInterval(this.poll);
    for (const id of [...this.byId.keys()]) this.unsubscribe(id);
  }
}
