// event/subscribe: every event appended to a session by any process (hooks, the CLI,
// another server), delivered once, in seq order, with no gap. Source of truth: the log.
// Each subscription is its own reader of the log from a position (offset, seq, chain hash):
// it first reads the gap after `after`, then whatever the log grows by, so replay and live
// are one path and no event can be skipped or sent twice. How growth is noticed: one
// fs.watch per watched session folder (inotify/FSEvents: a wake-up within milliseconds of
// an append), plus a stat poll every POLL_MS as the fallback for file systems where watch
// events are lost or unsupported. The index feed (index.feed) is not used: it is a hint
// rotated by the index, one file for every session, so a watcher of it would wake for every
// append anywhere and still have to stat the log. A crash leaves nothing: nothing is written.
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../core/events.ts';
import { type LogPosition, type Page, type PositionCache, START, noteRedaction, readPage, redactionsOf, tailPosition } from '../ops/events.ts';
import { LOG_FILE } from '../store/log.ts';
import type { FsStore } from '../store/store.ts';
import type { Connection } from './dispatcher.ts';

export const POLL_MS = 500;
/** Bytes of events a subscription reads per step before yielding and checking backpressure. */
const STEP_BYTES = 256 * 1024;

interface Watch {
  watcher: fs.FSWatcher | null;
  subs: Set<Subscription>;
}

class Subscription {
  private running = false;
  private again = false;
  stopped = false;
  /** A chain or parse failure stops delivery (the log is corrupt, WS201); a repair does not restart it. */
  failed: string | null = null;

  constructor(
    readonly id: string,
    readonly threadId: string,
    private readonly path: string,
    /** The last seq delivered (or the subscription's `after`). */
    private sent: number,
    /** Where reading continues: at or before the event after `sent`. */
    private pos: LogPosition,
    private readonly redactions: Map<number, string[]>,
    readonly conn: Connection,
    private readonly shared: SharedReads,
  ) {}

  /** Reads and sends until the log has nothing more; coalesces wake-ups that come meanwhile. */
  async pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        for (;;) {
          if (this.stopped || this.conn.state.closed || this.failed) return;
          let size: number;
          try {
            size = fs.statSync(this.path).size;
          } catch {
            return;
          }
          if (size < this.pos.offset) {
            // The log was cut below what we read (a repair quarantined a torn tail we never delivered
            // from: complete lines are never removed). Start over from the beginning; seq skips duplicates.
            this.pos = START;
          }
          if (size === this.pos.offset) break;
          const page = this.shared.read(this.path, this.pos, this.sent, size, this.redactions);
          for (const { event, raw } of page.events) this.deliver(event, raw);
          this.pos = page.next;
          if (page.corrupt) {
            this.failed = `events log corrupt at seq ${page.corrupt.seq}: ${page.corrupt.reason}`;
            process.stderr.write(`baton serve: subscription ${this.id} on ${this.threadId} stopped: ${this.failed} (WS201)\n`);
            return;
          }
          await this.conn.drained();
          if (!page.more && page.events.length === 0) break;
        }
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  private deliver(ev: StoredEvent, raw: string | null): void {
    this.sent = ev.seq;
    noteRedaction(this.redactions, ev);
    // The log line is the event's JSON already: no re-encoding per subscriber.
    this.conn.send(`{"jsonrpc":"2.0","method":"event/appended","params":{"subscriptionId":${JSON.stringify(this.id)},"threadId":${JSON.stringify(this.threadId)},"event":${raw ?? JSON.stringify(ev)}}}`);
  }
}

/**
 * Subscribers of one session at the same position read the same bytes: the last page read from
 * each log is kept for the others (50 subscribers of a live thread read and check a new event
 * once, not 50 times). Only unredacted pages read from exactly the position a subscriber is at.
 */
class SharedReads {
  private readonly last = new Map<string, { offset: number; size: number; page: Page }>();

  read(path: string, pos: LogPosition, sent: number, size: number, redactions: Map<number, string[]>): Page {
    const shareable = redactions.size === 0 && sent === pos.seq;
    const hit = this.last.get(path);
    if (shareable && hit && hit.offset === pos.offset && hit.size === size) return hit.page;
    const page = readPage(path, pos, sent, STEP_BYTES, redactions);
    if (shareable) this.last.set(path, { offset: pos.offset, size, page });
    return page;
  }

  forget(path: string): void {
    this.last.delete(path);
  }
}

/** The subscriptions of one server: watchers shared per session, one reader per subscription. */
export class Subscriptions {
  private readonly watches = new Map<string, Watch>();
  private readonly byId = new Map<string, Subscription>();
  private next = 1;
  private readonly poll: NodeJS.Timeout;
  private readonly shared = new SharedReads();

  constructor(
    private readonly store: FsStore,
    private readonly positions: PositionCache,
  ) {
    this.poll = setInterval(() => {
      for (const w of this.watches.values()) for (const s of w.subs) void s.pump();
    }, POLL_MS);
    this.poll.unref();
  }

  /** Starts delivering events with seq > after (default: the last seq now). */
  subscribe(conn: Connection, threadId: string, after: number | undefined): { subscriptionId: string; threadId: string; after: number } {
    const dir = this.store.dir(threadId);
    const path = join(dir, LOG_FILE);
    const tail = tailPosition(path);
    const from = after ?? tail.seq;
    const start = after === undefined ? tail : this.positions.before(threadId, after, tail.offset);
    const id = `sub-${this.next++}`;
    const sub = new Subscription(id, threadId, path, from, start, redactionsOf(this.store, threadId), conn, this.shared);
    let w = this.watches.get(threadId);
    if (!w) {
      w = { watcher: null, subs: new Set() };
      const ww = w;
      try {
        ww.watcher = fs.watch(dir, { persistent: false }, (_ev, name) => {
          if (name === null || name === LOG_FILE) for (const s of ww.subs) void s.pump();
        });
        ww.watcher.on('error', () => {
          ww.watcher?.close();
          ww.watcher = null; // the poll carries on alone
        });
      } catch {
        ww.watcher = null;
      }
      this.watches.set(threadId, w);
    }
    w.subs.add(sub);
    this.byId.set(id, sub);
    conn.onClose.push(() => this.unsubscribe(id));
    // After the response has gone out: the first notifications follow it.
    setImmediate(() => void sub.pump());
    return { subscriptionId: id, threadId, after: from };
  }

  /** Whether the subscription existed (and was this connection's). */
  unsubscribe(id: string, conn?: Connection): boolean {
    const sub = this.byId.get(id);
    if (!sub) return false;
    if (conn && sub.conn !== conn) return false;
    sub.stopped = true;
    this.byId.delete(id);
    const w = this.watches.get(sub.threadId);
    if (w) {
      w.subs.delete(sub);
      if (w.subs.size === 0) {
        w.watcher?.close();
        this.watches.delete(sub.threadId);
        this.shared.forget(join(this.store.dir(sub.threadId), LOG_FILE));
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
