// What the index answers (index.md): session listing and full-text search, plus the same
// listing computed from a plain scan of the logs when no index can be had. Read-only.
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { fail } from '../core/errors.ts';
import { LOG_FILE } from '../store/log.ts';
import type { Db } from './db.ts';
import { readLogInto, statLog } from './logread.ts';
import type { StoredEvent } from '../core/events.ts';
import { happenedAt } from '../core/time.ts';
import { type LifecycleState, type OpenEpisode, type PointerOp, type SessionRow, applyRedaction, baseType, emptyRow, eventText, presentedText, rowState } from './project.ts';
import { sessionNames } from './rebuild.ts';
import { parseList } from './chunks.ts';
import { POINTER_TYPE, laterPointer, pointerText } from './pointer-text.ts';
import { porterStem } from './stem.ts';
import { ROW_COLUMNS, type RawRow, eventAt, rowFromRaw } from './writer.ts';

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
  let sql = `SELECT ${ROW_COLUMNS} FROM sessions${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY last_touched_at DESC, id ASC`;
  if (f.limit !== undefined) sql += ` LIMIT ${Math.floor(f.limit)}`;
  const rows = (db.prepare(sql).raw().all(...args) as RawRow[]).map(rowFromRaw);
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
  /** Transcript items only (transcripts.md, "Search and files"): of this agent, role, kind, naming this file. */
  agent?: string;
  role?: string;
  kind?: string;
  /** A path as given (absolute, or relative to each session's workspace). */
  file?: string;
  /** The same file as an absolute path from where the command ran, when `file` was relative (either form matches, as `baton files` does). */
  fileFrom?: string;
  /** Only this session. */
  session?: string;
  /** ISO bounds on the item's time (the event's ts for other events). */
  since?: string;
  until?: string;
  /** The clock recency is measured against. */
  nowMs?: number;
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
  /** When it happened: the item's own time, else the event's. */
  at: string;
  /** Transcript items: who said or did it. */
  agent?: string;
  role?: string;
  kind?: string;
  item_id?: string;
  tool?: string;
  files?: string[];
}

export const HIT_OPEN = '\u0002';
export const HIT_CLOSE = '\u0003';

interface Term {
  word: string;
  /** The word's Porter stem: what the index matches (stem.ts). */
  stem: string;
  /** The part of the word any word of the same stem starts with (a cheap pre-check on raw log bytes). */
  need: string;
  prefix: boolean;
}

/** Folds a word the way the FTS5 unicode61 tokenizer does (case, diacritics). */
export function foldWord(w: string): string {
  return w.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD_RE = /[\p{L}\p{N}]+/gu;
/** A query longer than this is refused (USAGE), never handed to SQLite. */
export const MAX_QUERY_CHARS = 1000;
const MAX_TERMS = 32;

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/** The words of a user query; `word*` keeps a prefix. USAGE when there are none, or too many. */
export function queryTerms(q: string): Term[] {
  if (typeof q !== 'string' || q.includes('\0')) fail('USAGE', 'the search query holds a NUL byte');
  if (q.length > MAX_QUERY_CHARS) fail('USAGE', `the search query is ${q.length} characters long; at most ${MAX_QUERY_CHARS}`);
  const terms: Term[] = [];
  for (const raw of q.split(/\s+/)) {
    const prefix = raw.endsWith('*');
    const words = raw.match(WORD_RE) ?? [];
    for (let i = 0; i < words.length; i++) {
      const word = foldWord(words[i]);
      const isPrefix = prefix && i === words.length - 1;
      const stem = isPrefix ? word : porterStem(word);
      const common = isPrefix ? word : commonPrefix(word, stem).slice(0, -1);
      terms.push({ word, stem, prefix: isPrefix, need: common.length >= 3 ? common : '' });
    }
  }
  if (!terms.length) fail('USAGE', 'the search query has no words to look for (quotes, operators and * alone are not words)');
  if (terms.length > MAX_TERMS) fail('USAGE', `the search query has ${terms.length} words; at most ${MAX_TERMS}`);
  return terms;
}

/** The query for FTS5: every word quoted (so no user text is FTS5 syntax), all required. */
export function ftsQuery(q: string): string {
  return queryTerms(q)
    .map((t) => `"${t.word}"${t.prefix ? '*' : ''}`)
    .join(' ');
}

// A word of the same stem starts with `need` (what the log pre-check relies on too): most words are told apart without stemming them.
const termHits = (t: Term, folded: string): boolean =>
  t.prefix ? folded.startsWith(t.word) : folded === t.word || (folded.startsWith(t.need) && porterStem(folded) === t.stem);

/** A window of the text around the first matching word, matches between HIT_OPEN and HIT_CLOSE. */
export function makeSnippet(text0: string, terms: Term[], words = 24): string {
  // The marks are the snippet's own: a text holding those characters (a transcript can) would
  // mark words no query matched.
  const text = text0.includes(HIT_OPEN) || text0.includes(HIT_CLOSE) ? text0.replace(/[\u0002\u0003]/g, ' ') : text0;
  const toks: { start: number; end: number; hit: boolean }[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    const f = foldWord(m[0]);
    const hit = terms.some((t) => termHits(t, f));
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

let spanBuf: Buffer | null = null;
/** The read buffer of eventsAt, reused (a chunk's span is read, checked and parsed before the next). */
function spanBuffer(bytes: number): Buffer {
  if (bytes > 1024 * 1024) return Buffer.allocUnsafe(bytes); // a long-lived server keeps no large buffer
  spanBuf ??= Buffer.allocUnsafe(1024 * 1024);
  return spanBuf;
}

/** Bytes read past the last offset for its line; a longer line is read on its own (eventAt). */
const LAST_LINE_BYTES = 16 * 1024;

/**
 * The events at these byte offsets of a log (ascending; one read for the span), null where
 * unreadable or, with `need`, surely not matching. The pre-check: in an ASCII span, a line
 * must hold every query word's stem prefix as it is (lower-cased; latin1 keeps byte
 * offsets), each word's next occurrence found once and moved forward line by line (the
 * lines ascend), so the span is searched once a word. Lines of other spans are parsed.
 */
export function eventsAt(logPath: string, offs: number[], seqs: number[], need?: string[]): (StoredEvent | null)[] {
  const out: (StoredEvent | null)[] = offs.map(() => null);
  if (!offs.length) return out;
  let fd: number;
  try {
    fd = fs.openSync(logPath, 'r');
  } catch {
    return out;
  }
  try {
    const lo = offs[0];
    const len = Math.min(offs[offs.length - 1] - lo + LAST_LINE_BYTES, 8 * 1024 * 1024);
    const buf = spanBuffer(Math.max(0, len));
    const n = fs.readSync(fd, buf, 0, len, lo);
    const needed = need?.filter(Boolean) ?? [];
    const low = needed.length && isAscii(buf.subarray(0, n)) ? buf.toString('latin1', 0, n).toLowerCase() : null;
    const next = needed.map(() => -1);
    offs.forEach((off, i) => {
      const at = off - lo;
      const nl = at >= 0 && at < n ? buf.indexOf(10, at) : -1;
      if (nl < 0 || nl >= n) {
        out[i] = eventAt(logPath, off, seqs[i]);
        return;
      }
      try {
        if (low !== null) {
          for (let k = 0; k < needed.length; k++) {
            if (next[k] < at && next[k] !== Number.MAX_SAFE_INTEGER) {
              const p = low.indexOf(needed[k], at);
              next[k] = p < 0 ? Number.MAX_SAFE_INTEGER : p;
            }
            if (next[k] + needed[k].length > nl) return;
          }
        }
        const ev = JSON.parse(buf.toString('utf8', at, nl)) as StoredEvent;
        out[i] = ev.seq === seqs[i] ? ev : null;
      } catch {}
    });
    return out;
  } finally {
    fs.closeSync(fd);
  }
}

function matchesAll(text: string, terms: Term[]): boolean {
  const words = [...new Set((text.match(WORD_RE) ?? []).map(foldWord))];
  return terms.every((q) => words.some((w) => termHits(q, w)));
}

const ITEM_FILTERS = ['agent', 'role', 'kind', 'file'] as const;

/** Whether a chunk's recorded type can pass the filter's agent, role and kind (an older index records the bare type: unknown, kept). */
function itemTypeTest(f: SearchFilter): (recorded: string) => boolean {
  if (f.agent === undefined && f.role === undefined && f.kind === undefined) return () => true;
  return (recorded) => {
    const [t, agent, role, kind] = recorded.split(':');
    if (t !== 'transcript.item') return false;
    if (agent === undefined) return true;
    return (f.agent === undefined || agent === f.agent) && (f.role === undefined || role === f.role) && (f.kind === undefined || kind === f.kind);
  };
}
const wantsItems = (f: SearchFilter): boolean => ITEM_FILTERS.some((k) => f[k] !== undefined);

/** Whether a file filter names one of an item's files (workspace-relative in the item). */
export function namesFile(files: readonly string[] | undefined, wanted: string, workspace: string | null): boolean {
  if (!files?.length) return false;
  const w = wanted.replace(/\\/g, '/').replace(/^\.\//, '');
  const ws = workspace?.replace(/\/+$/, '');
  const rel = ws && w.startsWith(`${ws}/`) ? w.slice(ws.length + 1) : w;
  return files.some((f) => f === w || f === rel || (ws !== undefined && ws !== null && `${ws}/${f}` === w));
}

/** A hit found, its snippet not cut yet: only the hits of the page returned get one (withSnippet). */
interface Found {
  hit: SearchHit;
  text: string;
}

const withSnippet = ({ hit, text }: Found, terms: Term[]): SearchHit => {
  hit.snippet = makeSnippet(text, terms);
  return hit;
};

/** The hit an event makes under a filter (snippet still empty), or null when the filter leaves it out. */
function hitOf(ev: Pick<StoredEvent, 'seq' | 'ts' | 'type' | 'payload'>, text: string, f: SearchFilter, base: { session: string; title: string; workspace: string | null; score: number }): Found | null {
  const p = (ev.payload ?? {}) as Record<string, any>;
  const isItem = ev.type === 'transcript.item';
  if (wantsItems(f) && !isItem) return null;
  if (f.agent !== undefined && p.agent !== f.agent) return null;
  if (f.role !== undefined && p.role !== f.role) return null;
  if (f.kind !== undefined && p.kind !== f.kind) return null;
  if (f.file !== undefined && !namesFile(p.files, f.file, base.workspace) && !(f.fileFrom !== undefined && namesFile(p.files, f.fileFrom, base.workspace))) return null;
  const at = isItem && typeof p.at === 'string' ? p.at : happenedAt(ev);
  if (f.since !== undefined && at < f.since) return null;
  if (f.until !== undefined && at >= f.until) return null;
  const hit: SearchHit = { ...base, seq: ev.seq, type: ev.type, snippet: '', at };
  if (isItem) {
    hit.agent = p.agent;
    hit.role = p.role;
    hit.kind = p.kind;
    hit.item_id = p.item_id;
    if (p.tool?.name) hit.tool = p.tool.name;
    if (Array.isArray(p.files)) hit.files = p.files;
  }
  return { hit, text };
}

/** The hit of a session's pointer (pointer-text.ts): when its text holds every word and the filter lets a pointer through. */
function pointerHit(sessionDir: string, id: string, seq: number, terms: Term[], f: SearchFilter, base: Parameters<typeof hitOf>[3]): Found | null {
  const p = pointerText(sessionDir, id);
  if (!p || !matchesAll(p.text, terms)) return null;
  return hitOf({ seq, ts: p.at, type: POINTER_TYPE, payload: {} }, p.text, f, base);
}

const DAY_MS = 86_400_000;

/** Relevance with recency: bm25's score, weighed up to twice for what happened in the last days. */
export function rankScore(relevance: number, at: string, nowMs: number): number {
  const age = Math.max(0, (nowMs - Date.parse(at)) / DAY_MS) || 0;
  return relevance * (1 + 1 / (1 + age / 7));
}

/**
 * Ranked hits: FTS5 finds the chunks holding every word (bm25), then each chunk's events
 * are read from the log and kept when they hold every word themselves and pass the filter;
 * the candidates are ordered by relevance with recency.
 *
 * The ranked query returns rowids and scores only (sorting every match with its columns
 * cost twice as much); a chunk's columns and its session are looked up as the ranking is
 * walked, best first, until enough candidates are found. Filters on the recorded types
 * (an item's agent, role and kind, project.ts indexedType) drop chunks before any log is read.
 */
export function searchIndex(db: Db, home: string, query: string, f: SearchFilter): SearchHit[] {
  const terms = queryTerms(query);
  const where = ['event_text MATCH ?'];
  const args: unknown[] = [ftsQuery(query)];
  const of: string[] = [];
  if (f.cwd !== null) {
    of.push('cwd = ?');
    args.push(f.cwd);
  }
  if (f.session !== undefined) {
    of.push('id = ?');
    args.push(f.session);
  }
  if (of.length) where.push(`(rowid >> 32) IN (SELECT num FROM sessions WHERE ${of.join(' AND ')})`);
  const type = wantsItems(f) ? 'transcript.item' : f.type;
  // What a chunk's recorded types must hold for the filter, tested as the ranking is walked:
  // in SQL the test reads every match's types (a lookup each), most never needed.
  const marks = [type, f.agent === undefined ? undefined : `transcript.item:${f.agent}:`, f.role === undefined ? undefined : `:${f.role}:`].filter(
    (v): v is string => v !== undefined,
  );
  const ranked = db.prepare(`SELECT rowid, bm25(event_text) AS score FROM event_text WHERE ${where.join(' AND ')} ORDER BY score`).raw();
  const columns = db.prepare('SELECT seqs, offs, types FROM event_text WHERE rowid = ?').raw();
  const sessionOf = db.prepare('SELECT id, title, cwd, redactions FROM sessions WHERE num = ?').raw();
  type Session = { id: string; title: string; cwd: string | null; red: Record<string, string[]> } | null;
  const sessions = new Map<number, Session>();
  const session = (num: number): Session => {
    let s = sessions.get(num);
    if (s === undefined) {
      const r = sessionOf.get(num) as [string, string, string | null, string] | undefined;
      s = r ? { id: r[0], title: r[1], cwd: r[2], red: JSON.parse(r[3]) as Record<string, string[]> } : null;
      sessions.set(num, s);
    }
    return s;
  };
  const want = itemTypeTest(f);
  const limit = Math.max(1, Math.floor(f.limit));
  // Candidates beyond the limit, so recency can reorder what relevance found.
  const wanted = limit * 3;
  const hits: Found[] = [];
  // What a matching line holds as it is: each word's stem prefix, and the last part of a wanted file's path.
  const need = terms.map((t) => t.need);
  const fileName = f.file?.replace(/\\/g, '/').split('/').pop()?.toLowerCase();
  if (fileName && /^[a-z0-9._-]+$/.test(fileName)) need.push(fileName);
  for (const [rid, score] of ranked.iterate(...args) as Iterable<[number, number]>) {
    const cols = columns.get(rid) as [string, string, string] | undefined;
    if (!cols || !marks.every((m) => cols[2].includes(m))) continue;
    const types = cols[2].split(',');
    const seqs = parseList(cols[0]);
    const pick = seqs.map((_, i) => i).filter((i) => (!type || baseType(types[i]) === type) && want(types[i]));
    if (!pick.length) continue;
    const s = session(Math.floor(rid / 2 ** 32));
    if (!s) continue;
    const base = { session: s.id, title: s.title, workspace: s.cwd, score: Math.round(-score * 1000) / 1000 || 0 };
    if (baseType(types[0]) === POINTER_TYPE) {
      // The pointer's row: its text is state.json's now (the truth), never the log's.
      const found = pointerHit(join(home, 'sessions', s.id), s.id, seqs[0], terms, f, base);
      if (found) hits.push(found);
      if (hits.length >= wanted) break;
      continue;
    }
    const offs = parseList(cols[1]);
    const evs = eventsAt(
      join(home, 'sessions', s.id, LOG_FILE),
      pick.map((i) => offs[i]),
      pick.map((i) => seqs[i]),
      need,
    );
    for (let k = 0; k < pick.length && hits.length < wanted; k++) {
      const ev = evs[k];
      if (ev === null) continue;
      const text = presentedText(eventText(ev), s.red[seqs[pick[k]]]);
      if (!matchesAll(text, terms)) continue;
      const found = hitOf(ev, text, f, base);
      if (found) hits.push(found);
    }
    if (hits.length >= wanted) break;
  }
  const now = f.nowMs ?? Date.now();
  return hits
    .map((h) => ({ h, rank: rankScore(Math.max(h.hit.score, 0.001), h.hit.at, now) }))
    .sort((a, b) => b.rank - a.rank || (a.h.hit.at < b.h.hit.at ? 1 : -1))
    .slice(0, limit)
    .map(({ h }) => withSnippet(h, terms));
}

/** Search without an index: every word as it would match the index (stems), newest first. */
export function searchByScan(home: string, query: string, f: SearchFilter): SearchHit[] {
  const terms = queryTerms(query);
  const hits: Found[] = [];
  for (const row of scanRows(home)) {
    if (f.cwd !== null && row.cwd !== f.cwd) continue;
    if (f.session !== undefined && row.id !== f.session) continue;
    const path = join(home, 'sessions', row.id, LOG_FILE);
    const texts = new Map<number, { type: string; text: string; off: number }>();
    const r = emptyRow(row.id);
    const last: { pointer: PointerOp | null } = { pointer: null };
    readLogInto(path, r, statLog(path)?.size ?? 0, (op) => {
      if (op.kind === 'text') texts.set(op.seq, { type: op.type, text: op.text, off: op.off });
      else if (op.kind === 'pointer') last.pointer = laterPointer(last.pointer, op);
      else
        for (const s of op.seqs) {
          const t = texts.get(s);
          if (t) t.text = applyRedaction(t.text, op.pattern);
        }
    });
    const type = wantsItems(f) ? 'transcript.item' : f.type;
    const keep = [...texts].filter(([, t]) => (!type || baseType(t.type) === type) && matchesAll(t.text, terms));
    const evs = eventsAt(
      path,
      keep.map(([, t]) => t.off),
      keep.map(([seq]) => seq),
    );
    const base = { session: row.id, title: row.title, workspace: row.cwd, score: 0 };
    keep.forEach(([, t], k) => {
      const ev = evs[k];
      if (!ev) return;
      const found = hitOf(ev, t.text, f, base);
      if (found) hits.push(found);
    });
    const p = last.pointer;
    const pointer = p && (!type || type === POINTER_TYPE) ? pointerHit(join(home, 'sessions', row.id), row.id, p.seq, terms, f, base) : null;
    if (pointer) hits.push(pointer);
  }
  hits.sort(({ hit: a }, { hit: b }) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.seq - a.seq));
  return hits.slice(0, f.limit).map((h) => withSnippet(h, terms));
}
