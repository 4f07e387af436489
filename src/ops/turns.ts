// A session's transcript as turns (transcripts.md, "The item"): a turn starts at a user
// message and holds every item up to the next one, the way Codex's app server shows a thread
// (turns hold items). Read-only: a fold of the log's transcript.item events, where a record
// that supersedes an earlier one takes its place. The app server's thread/read and
// thread/turns/list page through it newest first, each page within a byte bound.
import type { StoredEvent } from '../core/events.ts';
import type { TranscriptItem } from '../core/transcript.ts';
import type { FsStore } from '../store/store.ts';

export type TurnItem = TranscriptItem & { seq: number };

export interface Turn {
  /**
   * The seq of the turn's first item (its user message, or the first item of a session that
   * began without one): of its first record, when the agent changed it since (the item keeps its
   * place, so turn ids keep the log's order and page by `before`).
   */
  id: number;
  startedAt: string;
  agent: string;
  items: TurnItem[];
  /** Set when the turn alone was over the page's bound: its first items were left out (this many). */
  itemsOmitted?: number;
}

export interface TurnsPage {
  turns: Turn[];
  /** Pass as `before` for the next (older) page; null when there is none. */
  nextBefore: number | null;
  /** Items the session holds in all. */
  totalItems: number;
}

/** Every turn of a session, oldest first. */
export function sessionTurns(store: FsStore, id: string): { turns: Turn[]; totalItems: number } {
  const items: TurnItem[] = [];
  /** The seq of each item's first record: its place in the log. */
  const placed: number[] = [];
  const at = new Map<number, number>();
  store.events(id, 1, (ev: StoredEvent) => {
    if (ev.type !== 'transcript.item') return;
    const item = { ...(ev.payload as unknown as TranscriptItem), seq: ev.seq };
    const prev = item.supersedes !== undefined ? at.get(item.supersedes) : undefined;
    if (prev !== undefined) {
      // The agent changed the item since: the newer record takes the older one's place.
      items[prev] = item;
      at.set(ev.seq, prev);
      return;
    }
    at.set(ev.seq, items.length);
    items.push(item);
    placed.push(ev.seq);
  });
  const turns: Turn[] = [];
  items.forEach((item, i) => {
    const last = turns[turns.length - 1];
    if (!last || (item.role === 'user' && item.kind === 'message')) turns.push({ id: placed[i], startedAt: item.at, agent: item.agent, items: [item] });
    else last.items.push(item);
  });
  return { turns, totalItems: items.length };
}

/** The newest turns before `before` (a turn id), newest first, at most `limit` and about `maxBytes` of JSON (at least one turn). */
export function turnsPage(store: FsStore, id: string, opts: { before?: number; limit: number; maxBytes: number }): TurnsPage {
  const { turns, totalItems } = sessionTurns(store, id);
  const older = opts.before === undefined ? turns : turns.filter((t) => t.id < (opts.before as number));
  const page: Turn[] = [];
  let bytes = 0;
  for (let i = older.length - 1; i >= 0 && page.length < opts.limit; i--) {
    const size = Buffer.byteLength(JSON.stringify(older[i]));
    if (page.length > 0 && bytes + size > opts.maxBytes) break;
    page.push(size > opts.maxBytes ? lastItemsWithin(older[i], opts.maxBytes) : older[i]);
    bytes += size;
  }
  const oldest = page[page.length - 1];
  const more = oldest !== undefined && older.length > page.length;
  return { turns: page, nextBefore: more ? oldest.id : null, totalItems };
}

/**
 * A turn over the bound: its first item (the request that began it) and its newest items that
 * fit, and how many between them were left out (each still readable by seq: event/replay).
 */
function lastItemsWithin(t: Turn, maxBytes: number): Turn {
  const kept: TurnItem[] = [];
  const first = t.items[0];
  let bytes = 256 + Buffer.byteLength(JSON.stringify(first)) + 1;
  for (let i = t.items.length - 1; i >= 1; i--) {
    const size = Buffer.byteLength(JSON.stringify(t.items[i])) + 1;
    if (bytes + size > maxBytes) break;
    kept.unshift(t.items[i]);
    bytes += size;
  }
  const omitted = t.items.length - 1 - kept.length;
  return { ...t, items: [first, ...kept], ...(omitted > 0 ? { itemsOmitted: omitted } : {}) };
}
