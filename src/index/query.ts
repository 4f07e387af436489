// What the index answers (index.md): session listing and full-text search, plus the same
// listing computed from a plain scan of the logs when no index can be had. Read-only.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fail } from '../core/errors.ts';
import { LOG_FILE } from '../store/log.ts';
import type { Db } from './db.ts';
import { readLogInto, statLog } from './logread.ts';
import type { StoredEvent } from '../core/events.ts';
import { type LifecycleState, type OpenEpisode, type SessionRow, applyRedaction, emptyRow, eventText, presentedText, rowState } from './project.ts';
import { sessionNames } from './rebuild.ts';
import { parseList } from './chunks.ts';
import { rowFromDb, textAt } from './writer.ts';

export interface ListFilter {
  /** Exact real-path workspace; null for every workspace. */
  cwd: string | null;
  state?: LifecycleState;
  limit?: number;
  /** Keyset: only sessions after this one in the listing order (last touched desc, id asc). */
  after?: { last_touched_at: string; id: string };
  /** Only these sessions. */
  ids?: readonly string[];
}

/** Whether a row comes after the keyset position in the listing order. */
const isAfter = (r: { last_touched_at: string; id: string }, k: ListFilter['after']): boolean =>
  !k || r.last_touched_at < k.last_touched_at || (r.last_touched_at === k.last_touched_at && r.id > k.id);

/** One listed session: the columns of index.md, snake_case as --json prints them. */
export interface ListedSession {
  id: string;
  state: LifecycleState;
  title: string;
  workspace: string | null;
  git_root: string | null;
  created_at: string;
  last_touched_at: string;
  events: number;
  last_seq: number;
  pointer_status: string | null;
  open_episode: OpenEpisode | null;
  open_episodes: number;
  corrupt: { line: number; reason: string } | null;
  conflict: { detected_at: string; detail: string } | null;
}

/** The pointer status: state.json's when readable (the truth), else the last pointer.* event's. */
function pointerStatus(home: string, id: string, fromLog: string | null): string | null {
  try {
    const st = JSON.parse(fs.readFileSync(join(home, 'sessions', id, 'state.json'), 'utf8')) as { status?: unknown };
    if (typeof st.status === 'string') return st.status;
  } catch {}
  return fromLog;
}

export function present(home: string, row: SessionRow, nowMs: number, conflict: ListedSession['conflict']): ListedSession {
  const open = row.open_episodes;
  return {
    id: row.id,
    state: rowState(row, nowMs),
    title: row.title,
    workspace: row.cwd,
    git_root: row.git_root,
    created_at: row.created_at,
    last_touched_at: row.last_touched_at,
    events: row.events,
    last_seq: row.last_seq,
    pointer_status: pointerStatus(home, row.id, row.pointer_status),
    open_episode: open.length ? open[open.length - 1] : null,
    open_episodes: open.length,
    corrupt: row.corrupt ? { line: row.corrupt.line, reason: row.corrupt.reason } : null,
    conflict,
  };
}

const byTouched = (a: SessionRow, b: SessionRow): number =>
  a.last_touched_at < b.last_touched_at ? 1 : a.last_touched_at > b.last_touched_at ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export function listFromIndex(db: Db, home: string, f: ListFilter, nowMs: number): ListedSession[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.cwd !== null) {
    where.push('cwd = ?');
    args.push(f.cwd);
  }
  if (f.after) {
    where.push('(last_touched_at < ? OR (last_touched_at = ? AND id > ?))');
    args.push(f.after.last_touched_at, f.after.last_touched_at, f.after.id);
  }
  if (f.ids) {
    where.push(`id IN (${f.ids.map(() => '?').join(',') || 'NULL'})`);
    args.push(...f.ids);
  }
  const nowIso = new Date(nowMs).toISOString();
  if (f.state === 'archived') where.push('archived = 1');
  else if (f.state === 'active') {
    where.push('archived = 0 AND lease_until > ?');
    args.push(nowIso);
  } else if (f.state === 'suspended') {
    where.push('archived = 0 AND (lease_until IS NULL OR lease_until <= ?)');
    args.push(nowIso);
  }
  let sql = `SELECT * FROM sessions${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY last_touched_at DESC, id ASC`;
  if (f.limit !== undefined) sql += ` LIMIT ${Math.floor(f.limit)}`;
  const rows = (db.prepare(sql).all(...args) as Parameters<typeof rowFromDb>[0][]).map(rowFromDb);
  const conflicts = new Map<string, ListedSession['conflict']>();
  for (const c of db.prepare('SELECT session, detected_at, detail FROM conflicts ORDER BY id').all() as { session: string; detected_at: string; detail: string }[]) {
    conflicts.set(c.session, { detected_at: c.detected_at, detail: c.detail });
  }
  return rows.map((r) => present(home, r, nowMs, conflicts.get(r.id) ?? null)).filter((s) => !f.state || s.state === f.state);
}

/** Every session folded straight from its log: the fallback when no index can be had. */
export function scanRows(home: string): SessionRow[] {
  const out: SessionRow[] = [];
  for (const id of sessionNames(join(home, 'sessions'))) {
    const path = join(home, 'sessions', id, LOG_FILE);
    const st = statLog(path);
    if (!st || st.size === 0) continue;
    const row = emptyRow(id);
    try {
      readLogInto(path, row, st.size);
    } catch {
      continue;
    }
    if (row.last_seq > 0 || row.corrupt) out.push(row);
  }
  return out;
}

export function listFromRows(rows: SessionRow[], home: string, f: ListFilter, nowMs: number): ListedSession[] {
  const sel = rows.filter((r) => (f.cwd === null || r.cwd === f.cwd) && isAfter(r, f.after) && (!f.ids || f.ids.includes(r.id))).sort(byTouched);
  const listed = sel.map((r) => present(home, r, nowMs, null)).filter((s) => !f.state || s.state === f.state);
  return f.limit !== undefined ? listed.slice(0, f.limit) : listed;
}

// --- search ------------------------------------------------------------------------------

export interface SearchFilter {
  cwd: string | null;
  type?: string;
  limit: number;
}

export interface SearchHit {
  session: string;
  seq: number;
  type: string;
  /** The matching text around the hit; matched words between \u0002 and \u0003. */
  snippet: string;
  score: number;
  title: string;
  workspace: string | null;
}

export const HIT_OPEN = '\u0002';
export const HIT_CLOSE = '\u0003';

interface Term {
  word: string;
  prefix: boolean;
}

/** Folds a word the way the FTS5 unicode61 tokenizer does (case, diacritics). */
export function foldWord(w: string): string {
  return w.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD_RE = /[\p{L}\p{N}]+/gu;

/** The words of a user query; `word*` keeps a prefix. USAGE when there are none. */
export function queryTerms(q: string): Term[] {
  const terms: Term[] = [];
  for (const raw of q.split(/\s+/)) {
    const prefix = raw.endsWith('*');
    const words = raw.match(WORD_RE) ?? [];
    for (let i = 0; i < words.length; i++) terms.push({ word: foldWord(words[i]), prefix: prefix && i === words.length - 1 });
  }
  if (!terms.length) fail('USAGE', 'the search query has no words to look for');
  return terms;
}

/** The query for FTS5: every word quoted (so no user text is FTS5 syntax), all required. */
export function ftsQuery(q: string): string {
  return queryTerms(q)
    .map((t) => `"${t.word}"${t.prefix ? '*' : ''}`)
    .join(' ');
}

/** A window of the text around the first matching word, matches between HIT_OPEN and HIT_CLOSE. */
export function makeSnippet(text: string, terms: Term[], words = 24): string {
  const toks: { start: number; end: number; hit: boolean }[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    const f = foldWord(m[0]);
    const hit = terms.some((t) => f === t.word || (t.prefix && f.startsWith(t.word)));
    toks.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, hit });
  }
  if (!toks.length) return text.slice(0, 160).replace(/\s+/g, ' ');
  const first = Math.max(0, toks.findIndex((t) => t.hit));
  const lo = Math.max(0, first - Math.floor(words / 4));
  const hi = Math.min(toks.length - 1, lo + words - 1);
  let out = lo > 0 ? '…' : '';
  let at = lo > 0 ? toks[lo].start : 0;
  for (let i = lo; i <= hi; i++) {
    const t = toks[i];
    out += text.slice(at, t.start);
    out += t.hit ? `${HIT_OPEN}${text.slice(t.start, t.end)}${HIT_CLOSE}` : text.slice(t.start, t.end);
    at = t.end;
  }
  out += hi < toks.length - 1 ? '…' : text.slice(at);
  return out.replace(/\s+/g, ' ');
}

const NON_ASCII = /[^\x00-\x7f]/;

/** The texts of the events at these byte offsets of a log (one read for the span), null where unreadable or, with `need`, surely not matching. */
export function textsAt(logPath: string, offs: number[], seqs: number[], need?: string[]): (string | null)[] {
  const out: (string | null)[] = offs.map(() => null);
  if (!offs.length) return out;
  let fd: number;
  try {
    fd = fs.openSync(logPath, 'r');
  } catch {
    return out;
  }
  try {
    const lo = offs[0];
    const len = Math.min(offs[offs.length - 1] - lo + 64 * 1024, 8 * 1024 * 1024);
    const buf = Buffer.allocUnsafe(Math.max(0, len));
    const n = fs.readSync(fd, buf, 0, buf.length, lo);
    // Cheap pre-check before parsing: in an ASCII span, a line must hold every query word
    // as it is (lower-cased); latin1 keeps byte offsets. Other spans are parsed and folded.
    let low: string | null = null;
    if (need) {
      const span = buf.toString('latin1', 0, n);
      if (!NON_ASCII.test(span)) low = span.toLowerCase();
    }
    offs.forEach((off, i) => {
      const at = off - lo;
      const nl = at >= 0 && at < n ? buf.indexOf(10, at) : -1;
      if (nl < 0 || nl >= n) {
        out[i] = textAt(logPath, off, seqs[i]);
        return;
      }
      try {
        if (low !== null && need?.some((w) => {
          const k = low.indexOf(w, at);
          return k < 0 || k + w.length > nl;
        })) return;
        const ev = JSON.parse(buf.toString('utf8', at, nl)) as StoredEvent;
        out[i] = ev.seq === seqs[i] ? eventText(ev) : null;
      } catch {}
    });
    return out;
  } finally {
    fs.closeSync(fd);
  }
}

function matchesAll(text: string, terms: Term[]): boolean {
  const words = new Set((text.match(WORD_RE) ?? []).map(foldWord));
  return terms.every((q) => words.has(q.word) || (q.prefix && [...words].some((w) => w.startsWith(q.word))));
}

/**
 * Ranked hits: FTS5 finds the chunks holding every word (bm25), then each chunk's events
 * are read from the log and kept when they hold every word themselves, in rank order.
 */
export function searchIndex(db: Db, home: string, query: string, f: SearchFilter): SearchHit[] {
  const terms = queryTerms(query);
  const where = ['event_text MATCH ?'];
  const args: unknown[] = [ftsQuery(query)];
  if (f.type) {
    where.push('instr(t.types, ?) > 0');
    args.push(f.type);
  }
  if (f.cwd !== null) {
    where.push('s.cwd = ?');
    args.push(f.cwd);
  }
  const sql = `SELECT t.rowid AS rid, t.seqs AS seqs, t.offs AS offs, t.types AS types, bm25(event_text) AS score,
       s.id AS session, s.title AS title, s.cwd AS cwd, s.redactions AS redactions
     FROM event_text t JOIN sessions s ON s.num = (t.rowid >> 32)
     WHERE ${where.join(' AND ')} ORDER BY score`;
  type Row = { seqs: string; offs: string; types: string; score: number; session: string; title: string; cwd: string | null; redactions: string };
  const limit = Math.max(1, Math.floor(f.limit));
  const hits: SearchHit[] = [];
  const take = (r: Row): void => {
    const seqs = parseList(r.seqs);
    const offs = parseList(r.offs);
    const types = r.types.split(',');
    const pick = seqs.map((_, i) => i).filter((i) => !f.type || types[i] === f.type);
    const red = JSON.parse(r.redactions) as Record<string, string[]>;
    const texts = textsAt(
      join(home, 'sessions', r.session, LOG_FILE),
      pick.map((i) => offs[i]),
      pick.map((i) => seqs[i]),
      terms.map((t) => t.word),
    );
    pick.forEach((i, k) => {
      const raw = texts[k];
      if (raw === null || hits.length >= limit) return;
      const text = presentedText(raw, red[seqs[i]]);
      if (!matchesAll(text, terms)) return;
      hits.push({ session: r.session, seq: seqs[i], type: types[i], snippet: makeSnippet(text, terms), score: Math.round(-r.score * 1000) / 1000 || 0, title: r.title, workspace: r.cwd });
    });
  };
  // The best chunks first (a top-N query); when their events do not give enough hits (the
  // words are spread over different events), one ranked pass over the rest.
  const head = db.prepare(`${sql} LIMIT ?`).all(...args, limit * 2) as Row[];
  for (const r of head) {
    if (hits.length >= limit) break;
    take(r);
  }
  if (hits.length < limit && head.length === limit * 2) {
    let skip = head.length;
    for (const r of db.prepare(sql).iterate(...args) as Iterable<Row>) {
      if (skip > 0) {
        skip--;
        continue;
      }
      take(r);
      if (hits.length >= limit) break;
    }
  }
  return hits;
}

/** Search without an index: every word as a case-insensitive substring, newest first. */
export function searchByScan(home: string, query: string, f: SearchFilter): SearchHit[] {
  const terms = queryTerms(query);
  const hits: (SearchHit & { ts: string })[] = [];
  for (const row of scanRows(home)) {
    if (f.cwd !== null && row.cwd !== f.cwd) continue;
    const path = join(home, 'sessions', row.id, LOG_FILE);
    const texts = new Map<number, { type: string; text: string }>();
    const r = emptyRow(row.id);
    readLogInto(path, r, statLog(path)?.size ?? 0, (op) => {
      if (op.kind === 'text') texts.set(op.seq, { type: op.type, text: op.text });
      else for (const s of op.seqs) {
        const t = texts.get(s);
        if (t) t.text = applyRedaction(t.text, op.pattern);
      }
    });
    for (const [seq, t] of texts) {
      if (f.type && t.type !== f.type) continue;
      if (!matchesAll(t.text, terms)) continue;
      hits.push({ session: row.id, seq, type: t.type, snippet: makeSnippet(t.text, terms), score: 0, title: row.title, workspace: row.cwd, ts: row.last_touched_at });
    }
  }
  hits.sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : b.seq - a.seq));
  return hits.slice(0, f.limit).map(({ ts: _ts, ...h }) => h);
}
