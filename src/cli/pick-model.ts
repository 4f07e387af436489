// The picker's rules, without a terminal (`baton pick`, docs/cli.md): what a row shows, how
// typing filters (fuzzy), which rows are on screen (a window over the list, never all of it)
// and how the screen is divided. Pure: time comes in as a parameter, nothing is read or drawn
// here, so every rule is tested without Ink.
import { formatDuration } from '../core/duration.ts';
import { displayWidth, fitWidth } from './output.ts';

/** One session as the picker knows it: the index's row, then what loads lazily. */
export interface PickRow {
  id: string;
  title: string;
  workspace: string | null;
  git_root: string | null;
  last_touched_at: string;
  pointer_status: string | null;
  /** Agents seen so far: the open episode's provider at first, more once the extras load. */
  agents: string[];
  /** Loaded after the first paint (null until then): what typing filters over besides the title. */
  pointer_text: string | null;
  first_prompt: string | null;
  extras: boolean;
}

/** A search hit as a row of the search mode: the session, and its best hit. */
export interface PickHit {
  row: PickRow;
  seq: number;
  snippet: string;
  at: string;
  agent?: string;
  role?: string;
  kind?: string;
}

/** Relative time of a past moment: `now`, `3m ago`; a time in the future (a skewed clock) shows as `now`. */
export function ago(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '-';
  const d = nowMs - t;
  return d < 1000 ? 'now' : `${formatDuration(d)} ago`;
}

/** The project a row belongs to: the last part of its git root, else of its workspace. */
export function projectOf(r: Pick<PickRow, 'workspace' | 'git_root'>): string {
  const p = r.git_root ?? r.workspace;
  if (!p) return '-';
  const parts = p.split('/').filter(Boolean);
  return parts.length ? parts[parts.length - 1] : '/';
}

// --- fuzzy filter -------------------------------------------------------------------------

export const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();

/**
 * How well `term` (folded) matches `text` (folded) as a subsequence: null when it does not.
 * The best of the matches starting at each occurrence of the first character: contiguous runs
 * and a match at a word start score more; a span longer than `maxSpan` does not match (a short
 * term is found as a subsequence of almost any long text, which would match everything).
 */
export function fuzzyScore(term: string, text: string, maxSpan = Number.POSITIVE_INFINITY): number | null {
  if (!term) return 0;
  let best: number | null = null;
  for (let start = text.indexOf(term[0]); start >= 0; start = text.indexOf(term[0], start + 1)) {
    let ti = 1;
    let i = start + 1;
    let score = isWordStart(text, start) ? 3 : 1;
    let run = 0;
    for (; ti < term.length && i < text.length; i++) {
      if (text[i] !== term[ti]) {
        run = 0;
        continue;
      }
      run = text[i - 1] === term[ti - 1] ? run + 1 : 0;
      score += 1 + run * 2 + (isWordStart(text, i) ? 2 : 0);
      ti++;
    }
    if (ti < term.length) break; // no later start can match either
    const span = i - start;
    if (span > maxSpan) continue;
    score -= (span - term.length) * 0.1;
    if (best === null || score > best) best = score;
    if (span === term.length) break; // contiguous: nothing scores more
  }
  return best;
}

const isWordStart = (s: string, i: number): boolean => i === 0 || !/[\p{L}\p{N}]/u.test(s[i - 1]);

/** The span a term of a long field (pointer text, first prompt) may be spread over. */
const longSpan = (term: string): number => term.length * 2 + 4;

/**
 * A row's score for a typed filter (every space-separated term must match one of the title,
 * the pointer text or the first prompt), or null. The title counts double.
 */
export function rowScore(query: string, r: PickRow): number | null {
  const terms = fold(query).split(/\s+/).filter(Boolean);
  if (!terms.length) return 0;
  const title = fold(r.title || r.id);
  const pointer = r.pointer_text ? fold(r.pointer_text) : '';
  const prompt = r.first_prompt ? fold(r.first_prompt) : '';
  let total = 0;
  for (const t of terms) {
    const a = fuzzyScore(t, title);
    const b = pointer ? fuzzyScore(t, pointer, longSpan(t)) : null;
    const c = prompt ? fuzzyScore(t, prompt, longSpan(t)) : null;
    const best = Math.max(a === null ? -1e9 : a * 2, b ?? -1e9, c ?? -1e9);
    if (best === -1e9) return null;
    total += best;
  }
  return total;
}

/** The rows a filter keeps: best score first, the listing's order (newest first) among equals; all of them for an empty filter. */
export function filterRows(rows: readonly PickRow[], query: string): PickRow[] {
  if (!query.trim()) return rows.slice();
  const scored: { r: PickRow; s: number; i: number }[] = [];
  rows.forEach((r, i) => {
    const s = rowScore(query, r);
    if (s !== null) scored.push({ r, s, i });
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map((x) => x.r);
}

// --- the screen -------------------------------------------------------------------------

/** How the terminal's rows are shared: the prompt line, the list, a rule, the preview, the footer. */
export interface Layout {
  width: number;
  list: number;
  preview: number;
}

/**
 * One line is left unused: a frame as tall as the terminal makes Ink clear the whole screen on
 * every update. 80x24 gives 11 list rows and 9 preview lines; the list never gets fewer than 3.
 */
export function layoutFor(columns: number, rows: number): Layout {
  const usable = Math.max(6, rows - 1) - 3; // prompt, rule, footer
  const list = Math.max(3, Math.ceil(usable / 2));
  return { width: Math.max(20, columns), list, preview: Math.max(0, usable - list) };
}

/** The first row on screen so that `selected` is visible, moving as little as possible from `top`. */
export function windowTop(selected: number, top: number, height: number, total: number): number {
  let t = top;
  if (selected < t) t = selected;
  if (selected >= t + height) t = selected - height + 1;
  return Math.max(0, Math.min(t, Math.max(0, total - height)));
}

const pad = (s: string, w: number): string => {
  const t = fitWidth(s, w);
  return t + ' '.repeat(Math.max(0, w - displayWidth(t)));
};

/** The widths of a row's columns: the title takes what the others leave. */
function columns(width: number): number[] {
  const agent = width >= 100 ? 14 : 10;
  const project = width >= 100 ? 20 : 12;
  const when = 8;
  const pointer = 8;
  return [Math.max(8, width - agent - project - when - pointer - 4), agent, project, when, pointer];
}

const cells = (values: string[], width: number): string =>
  columns(width)
    .map((w, i) => pad(values[i], w))
    .join(' ');

/** A list row, `width` columns (the caller gives the two of the marker to no one else): title, agent(s), project, last activity, pointer status. */
export function rowLine(r: PickRow, width: number, nowMs: number): string {
  return cells([r.title || r.id, r.agents.length ? r.agents.join(',') : '-', projectOf(r), ago(r.last_touched_at, nowMs), r.pointer_status ?? '-'], width);
}

/** The column heads above the list, aligned with rowLine. */
export function headLine(width: number): string {
  return cells(['TITLE', 'AGENT', 'PROJECT', 'ACTIVE', 'POINTER'], width);
}

/** Text cut into lines of at most `width` columns (words kept whole when they fit), at most `max` lines. */
export function wrapText(text: string, width: number, max: number): string[] {
  const out: string[] = [];
  for (const para of text.replace(/\r/g, '').split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      let w = word;
      while (w.length > width) {
        if (line) {
          out.push(line);
          line = '';
        }
        out.push(w.slice(0, width));
        w = w.slice(width);
      }
      if (!line) line = w;
      else if (line.length + 1 + w.length <= width) line += ` ${w}`;
      else {
        out.push(line);
        line = w;
      }
    }
    out.push(line);
    if (out.length >= max) break;
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.slice(0, max).map((l) => fitWidth(l, width));
}
