// The picker's screen (`baton pick`), an Ink component: a prompt line, a window over the list
// (only the rows on screen are drawn), a preview of the selected session, a footer naming
// the keys. Typing filters (fuzzy, pick-model.ts); Tab switches to full-text search over
// items and back; Enter chooses, Esc or Ctrl-C cancels. Background work (the rest of the
// listing, the rows' extras) runs a slice per tick after the first paint, so keys stay live.
// Written with createElement (no JSX: the rest of the tree has no JSX settings).
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { createElement as h, type ReactElement, useEffect, useMemo, useRef, useState } from 'react';
import { HIT_CLOSE, HIT_OPEN } from '../index/query.ts';
import { type Preview, listPage, loadExtras, loadPreview, searchRows } from './pick-data.ts';
import { type PickHit, type PickRow, ago, filterRows, headLine, layoutFor, rowLine, windowTop, wrapText } from './pick-model.ts';
import { fitWidth } from './output.ts';

export interface PickProps {
  home: string;
  cwd: string | null;
  /** The first page, listed before the first paint. */
  first: PickRow[];
  /** Whether the first page was the whole listing. */
  complete: boolean;
  color: boolean;
  /** Called once with the chosen session, or null when cancelled. */
  onDone: (id: string | null) => void;
  nowMs: () => number;
}

/** Rows listed per background page. */
const PAGE = 500;
/** Rows whose extras are loaded per background slice. */
const EXTRAS_SLICE = 200;
const SEARCH_DELAY_MS = 120;

type Mode = 'filter' | 'search';

function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  // biome-ignore lint/correctness/useExhaustiveDependencies: subscribes once per stream; read() only reads it
  useEffect(() => {
    const on = () => setSize(read());
    stdout.on('resize', on);
    return () => {
      stdout.off('resize', on);
    };
  }, [stdout]);
  return size;
}

/** The parts of a snippet, the matched words marked (HIT_OPEN … HIT_CLOSE). */
function snippetParts(s: string): { text: string; hit: boolean }[] {
  const out: { text: string; hit: boolean }[] = [];
  let hit = false;
  let cur = '';
  for (const ch of s.replace(/\s+/g, ' ')) {
    if (ch === HIT_OPEN || ch === HIT_CLOSE) {
      if (cur) out.push({ text: cur, hit });
      cur = '';
      hit = ch === HIT_OPEN;
    } else cur += ch;
  }
  if (cur) out.push({ text: cur, hit });
  return out;
}

/** Snippet parts cut to `width` columns. */
function cutParts(parts: { text: string; hit: boolean }[], width: number): { text: string; hit: boolean }[] {
  const out: { text: string; hit: boolean }[] = [];
  let left = width;
  for (const p of parts) {
    if (left <= 0) break;
    const t = fitWidth(p.text, left);
    out.push({ text: t, hit: p.hit });
    left -= [...t].length;
  }
  return out;
}

export function Picker(props: PickProps): ReactElement {
  const { exit } = useApp();
  const size = useTerminalSize();
  const layout = layoutFor(size.columns, size.rows);
  const width = layout.width;
  const [mode, setMode] = useState<Mode>('filter');
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(0);
  const [top, setTop] = useState(0);
  const [version, setVersion] = useState(0);
  const [listing, setListing] = useState(!props.complete);
  const [search, setSearch] = useState<{ query: string; hits: PickHit[]; error: string | null } | null>(null);
  const data = useRef({ rows: props.first.slice(), byId: new Map(props.first.map((r) => [r.id, r])), extrasAt: 0, previews: new Map<string, Preview>(), done: false });
  const done = (id: string | null): void => {
    if (data.current.done) return;
    data.current.done = true;
    props.onDone(id);
    exit();
  };

  // Background: the rest of the listing a page a tick, then every row's extras a slice a tick.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the background work starts once, after the first paint; it reads props and the ref, never stale state
  useEffect(() => {
    let stopped = false;
    let timer: NodeJS.Immediate | null = null;
    let complete = props.complete;
    const step = (): void => {
      if (stopped) return;
      const d = data.current;
      if (!complete) {
        const page = listPage(props.home, props.cwd, PAGE, d.rows[d.rows.length - 1] ?? null);
        for (const r of page) {
          if (d.byId.has(r.id)) continue;
          d.byId.set(r.id, r);
          d.rows.push(r);
        }
        if (page.length < PAGE) {
          complete = true;
          setListing(false);
        }
        setVersion((v) => v + 1);
      } else {
        let n = 0;
        while (d.extrasAt < d.rows.length && n < EXTRAS_SLICE) {
          const r = d.rows[d.extrasAt++];
          if (!r.extras) {
            loadExtras(props.home, r);
            n++;
          }
        }
        if (n) setVersion((v) => v + 1);
        if (d.extrasAt >= d.rows.length) return;
      }
      timer = setImmediate(step);
    };
    timer = setImmediate(step);
    return () => {
      stopped = true;
      if (timer) clearImmediate(timer);
    };
  }, []);

  // Full-text search, a moment after the last key.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a search runs again only when the mode or the typed text changes
  useEffect(() => {
    if (mode !== 'search') return;
    if (!query.trim()) {
      setSearch(null);
      return;
    }
    const t = setTimeout(() => {
      try {
        setSearch({ query, hits: searchRows(props.home, query, props.cwd, data.current.byId), error: null });
      } catch (e) {
        const err = e as { code?: string; message?: string };
        setSearch({ query, hits: [], error: `${err.code ?? 'ERROR'} ${err.message ?? String(e)}` });
      }
      setSelected(0);
      setTop(0);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(t);
  }, [mode, query]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: version counts rows and extras loaded into the ref: the list recomputes when they change
  const filtered = useMemo(() => (mode === 'filter' ? filterRows(data.current.rows, query) : []), [mode, query, version]);
  const hits = mode === 'search' ? (search?.hits ?? []) : [];
  const total = mode === 'filter' ? filtered.length : hits.length;
  const items = layout.list - 1; // the column heads take a line
  const sel = Math.min(selected, Math.max(0, total - 1));
  const first = windowTop(sel, top, items, total);
  if (first !== top) setTop(first);
  const rowAt = (i: number): PickRow | null => (mode === 'filter' ? (filtered[i] ?? null) : (hits[i]?.row ?? null));
  const current = rowAt(sel);
  const currentHit = mode === 'search' ? (hits[sel] ?? null) : null;

  // The rows on screen get their extras now (agents, for the AGENT column), not when the slice reaches them.
  for (let i = first; i < Math.min(total, first + items); i++) {
    const r = rowAt(i);
    if (r && !r.extras) loadExtras(props.home, r);
  }

  useInput((input, key) => {
    // Keys typed faster than a read come as one chunk (Ink splits escape sequences only): each character is a key.
    if (input.length > 1 && !input.startsWith('\x1b') && /[\x00-\x1f\x7f]/.test(input)) {
      for (const ch of input) {
        if (ch === '\x03') return done(null);
        if (ch === '\r') return done(current ? current.id : null);
        if (ch === '\t') setMode((m) => (m === 'filter' ? 'search' : 'filter'));
        else if (ch === '\x7f' || ch === '\b') setQuery((q) => [...q].slice(0, -1).join(''));
        else if (ch === '\x15') setQuery('');
        else if (ch >= ' ') setQuery((q) => q + ch);
      }
      setSelected(0);
      setTop(0);
      return;
    }
    if (key.escape || (key.ctrl && input === 'c')) return done(null);
    if (key.return) return done(current ? current.id : null);
    if (key.tab) {
      setMode((m) => (m === 'filter' ? 'search' : 'filter'));
      setSelected(0);
      setTop(0);
      return;
    }
    // Relative to the state when applied: keys read in one chunk each move once.
    const move = (by: (s: number) => number): void => setSelected((s) => Math.max(0, Math.min(Math.max(0, total - 1), by(Math.min(s, Math.max(0, total - 1))))));
    if (key.upArrow || (key.ctrl && input === 'p')) return move((s) => s - 1);
    if (key.downArrow || (key.ctrl && input === 'n')) return move((s) => s + 1);
    if (key.pageUp) return move((s) => s - items);
    if (key.pageDown) return move((s) => s + items);
    if (key.home) return move(() => 0);
    if (key.end) return move(() => total - 1);
    if (key.backspace || key.delete) {
      setQuery((q) => [...q].slice(0, -1).join(''));
      setSelected(0);
      return;
    }
    if (key.ctrl && input === 'u') {
      setQuery('');
      setSelected(0);
      return;
    }
    if (key.ctrl || key.meta || !input) return;
    const typed = input.replace(/[\x00-\x1f\x7f]/g, '');
    if (!typed) return;
    setQuery((q) => q + typed);
    setSelected(0);
  });

  const c = (name: string): { color?: string } => (props.color ? { color: name } : {});
  const dim = props.color ? { dimColor: true } : {};
  const now = props.nowMs();
  const lines: ReactElement[] = [];
  let key = 0;
  const line = (...children: (ReactElement | string)[]): void => {
    lines.push(h(Text, { key: key++, wrap: 'truncate' }, ...children));
  };

  // The prompt line.
  const label = mode === 'filter' ? 'filter' : 'search';
  const status =
    mode === 'search'
      ? search?.error
        ? search.error
        : query.trim() && search?.query !== query
          ? 'searching…'
          : `${total} session${total === 1 ? '' : 's'}`
      : `${total}/${data.current.rows.length}${listing ? ' listing…' : ''}`;
  const promptText = `${label}> ${query}`;
  const room = Math.max(1, width - [...promptText].length - 1 - [...status].length);
  line(h(Text, { bold: true, ...c('cyan') }, `${label}> `), query, h(Text, { inverse: true }, ' '), ' '.repeat(room), h(Text, dim, status));

  // The list: the heads, then only the rows on screen.
  line(h(Text, { ...dim, bold: !props.color }, `  ${headLine(width - 2)}`));
  for (let i = 0; i < items; i++) {
    const at = first + i;
    if (at >= total) {
      line(at === 0 ? h(Text, dim, mode === 'search' ? (query.trim() ? '  no match in the items' : '  type words to search what the agents said and did') : data.current.rows.length ? '  no session matches' : '  no sessions here (baton pick --all lists every workspace)') : ' ');
      continue;
    }
    const r = rowAt(at) as PickRow;
    const text = rowLine(r, width - 2, now);
    if (at === sel) line(h(Text, { inverse: true, bold: true }, `> ${text}`));
    else line(`  ${text}`);
  }

  // The preview.
  line(h(Text, dim, [...`── ${current ? current.id : 'preview'} ${'─'.repeat(width)}`].slice(0, width).join('')));
  const previewLines: ReactElement[] = [];
  const pline = (...children: (ReactElement | string)[]): void => {
    previewLines.push(h(Text, { key: `p${previewLines.length}`, wrap: 'truncate' }, ...children));
  };
  if (current) {
    const d = data.current;
    let pv = d.previews.get(current.id);
    if (!pv) {
      pv = loadPreview(props.home, current.id);
      d.previews.set(current.id, pv);
      if (d.previews.size > 64) d.previews.delete(d.previews.keys().next().value as string);
    }
    if (currentHit) {
      const who = [currentHit.agent, currentHit.role, `seq ${currentHit.seq}`, ago(currentHit.at, now)].filter(Boolean).join(' · ');
      pline(h(Text, dim, `match ${who}: `));
      pline(...cutParts(snippetParts(currentHit.snippet), width - 2).map((p, i) => (p.hit ? h(Text, { key: i, bold: true, ...c('yellow') }, p.text) : p.text)));
    }
    if (pv.pointer) {
      pline(h(Text, { bold: true }, 'pointer '), h(Text, pv.pointer.status === 'CLEAN' ? c('green') : c('yellow'), pv.pointer.status), h(Text, dim, ` revision ${pv.pointer.revision}`));
      for (const l of wrapText(pv.pointer.text ?? '', width - 2, 3)) pline(`  ${l}`);
    } else pline(h(Text, dim, 'no pointer published'));
    const room2 = layout.preview - previewLines.length;
    if (pv.turns.length && room2 > 0) {
      // The newest turns that fit, oldest first, one line each.
      const shown = pv.turns.slice(-room2);
      for (const t of shown) {
        const who = t.role === 'user' ? 'you' : t.agent;
        const head = `${who} ${ago(t.at, now)}: `;
        pline(h(Text, { bold: true, ...(t.role === 'user' ? c('cyan') : c('magenta')) }, head), fitWidth(t.text.replace(/\s+/g, ' '), Math.max(1, width - [...head].length)));
      }
    } else if (room2 > 0 && !pv.turns.length) {
      const first = current.first_prompt;
      pline(h(Text, dim, first ? fitWidth(`first prompt: ${first.replace(/\s+/g, ' ')}`, width) : 'no turns captured yet'));
    }
  }
  for (let i = 0; i < layout.preview; i++) lines.push(previewLines[i] ?? h(Text, { key: key++ }, ' '));

  // The footer.
  const footer = `↑↓ move · Enter continue · Tab ${mode === 'filter' ? 'full-text search' : 'filter by title'} · Esc quit`;
  line(h(Text, dim, fitWidth(footer, width)));
  return h(Box, { flexDirection: 'column', width }, ...lines);
}
