// Search rows are chunks: up to 32 consecutive text events of one session in one FTS5 row
// (rowid = session num * 2^32 + the chunk's first seq), with the events' seqs, byte offsets
// and types beside the text. Indexing a chunk costs far less than indexing its events one
// by one (the per-row cost of FTS5 dominates short texts); search finds chunks, then keeps
// the events of each chunk that hold every query word (query.ts). Pure.
import { applyRedaction } from './project.ts';

export const CHUNK_EVENTS = 32;
export const CHUNK_CHARS = 16 * 1024;

export interface TextEvent {
  seq: number;
  type: string;
  text: string;
  off: number;
}

export interface Chunk {
  seqs: number[];
  offs: number[];
  types: string[];
  texts: string[];
  /** Where in the session's rowid range the row goes, when not at its first seq (the pointer's row, pointer-text.ts). */
  slot?: number;
}

/** Texts of one session, held until written so later `session redact` patterns apply first. */
export class TextBuffer {
  private readonly events = new Map<number, TextEvent>();

  add(e: TextEvent): void {
    this.events.set(e.seq, e);
  }

  /** Applies a pattern to the held texts; returns the seqs it does not hold (already written). */
  redact(seqs: number[], pattern: string): number[] {
    const missing: number[] = [];
    for (const s of seqs) {
      const e = this.events.get(s);
      if (e) e.text = applyRedaction(e.text, pattern);
      else missing.push(s);
    }
    return missing;
  }

  get size(): number {
    return this.events.size;
  }

  chunks(): Chunk[] {
    return toChunks([...this.events.values()].sort((a, b) => a.seq - b.seq));
  }
}

export function toChunks(events: TextEvent[]): Chunk[] {
  const out: Chunk[] = [];
  let cur: Chunk | null = null;
  let chars = 0;
  for (const e of events) {
    if (!cur || cur.seqs.length >= CHUNK_EVENTS || chars + e.text.length > CHUNK_CHARS) {
      cur = { seqs: [], offs: [], types: [], texts: [] };
      out.push(cur);
      chars = 0;
    }
    cur.seqs.push(e.seq);
    cur.offs.push(e.off);
    cur.types.push(e.type);
    cur.texts.push(e.text);
    chars += e.text.length + 1;
  }
  return out;
}

/** The column values of a chunk row: text, seqs, offs, types. */
export function chunkColumns(c: Chunk): [string, string, string, string] {
  return [c.texts.join('\n'), c.seqs.join(','), c.offs.join(','), c.types.join(',')];
}

export function parseList(s: string): number[] {
  return s ? s.split(',').map(Number) : [];
}
