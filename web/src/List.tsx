// The sessions list (web.md, Sessions): newest first, filters in the URL, keyset paging
// through thread/list's nextCursor, and a search box with the index's ranked snippets. The
// session-id and agent filters are applied in the page to the rows loaded so far (thread/list
// has neither): the agent is the open episode's provider, for a hit the item's agent.
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import type { ProjectListResult, SearchResult, ThreadListResult } from '../../src/client/index.ts';
import { describeError, onConn, rpc } from './api.ts';
import { age, short, shownName, snippetParts } from './format.ts';
import { AGENTS } from './Transcript.tsx';
import { type Route, navigate } from './route.ts';

type Row = ThreadListResult['data'][number];
type Hit = SearchResult['data'][number];
type ListRoute = Extract<Route, { kind: 'list' }>;

const PAGE = 50;
const STATES = ['', 'active', 'suspended', 'archived'] as const;

export function List({ route }: { route: ListRoute }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<{ code: string; message: string } | null>(null);
  const [projects, setProjects] = useState<ProjectListResult['data']>([]);
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [sel, setSel] = useState(0);
  const [query, setQuery] = useState(route.q);
  const search = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const gen = useRef(0);

  const cwd = route.ws || projects.find((p) => p.id === route.project)?.path || undefined;
  const waitProject = route.project !== '' && !route.ws && projects.length === 0;

  const load = useCallback(
    async (after: string | null) => {
      const g = ++gen.current;
      setLoading(true);
      try {
        const c = await rpc();
        const r = await c.threadList({ limit: PAGE, ...(cwd ? { cwd } : {}), ...(route.state ? { state: route.state as Row['state'] } : {}), ...(after ? { cursor: after } : {}) });
        if (g !== gen.current) return;
        setRows((old) => (after ? [...old, ...r.data] : r.data));
        setCursor(r.nextCursor);
        setError(null);
      } catch (e) {
        if (g === gen.current) setError(describeError(e));
      } finally {
        if (g === gen.current) setLoading(false);
      }
    },
    [cwd, route.state],
  );

  useEffect(() => {
    if (waitProject) return;
    setSel(0);
    void load(null);
    return onConn((s) => {
      if (s === 'up') void load(null);
    });
  }, [load, waitProject]);

  useEffect(() => {
    void rpc()
      .then((c) => c.projectList())
      .then((r) => setProjects(r.data))
      .catch(() => {});
  }, []);

  useEffect(() => {
    setQuery(route.q);
    if (!route.q) {
      setHits(null);
      return;
    }
    let live = true;
    void rpc()
      .then((c) => c.search({ query: route.q, limit: 30, ...(cwd ? { cwd } : {}) }))
      .then((r) => {
        if (!live) return;
        setHits(r.data);
        setError(null);
      })
      .catch((e) => live && setError(describeError(e)));
    return () => {
      live = false;
    };
  }, [route.q, cwd]);

  // Keys anywhere on the list but in a field: `/` focuses search, j/k and arrows move, Enter opens (the focused link).
  const keys = useRef<(e: globalThis.KeyboardEvent) => void>(() => {});
  keys.current = (e) => {
    const t = e.target as HTMLElement;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === '/') {
      e.preventDefault();
      search.current?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'j' || e.key === 'ArrowUp' || e.key === 'k') {
      e.preventDefault();
      const inList = list.current?.contains(t);
      focusRow(!inList ? sel : e.key === 'ArrowDown' || e.key === 'j' ? sel + 1 : sel - 1);
    }
  };
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => keys.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // The next keyset page loads when the "More" button scrolls into view.
  const more = useRef<HTMLButtonElement>(null);
  const loadMore = useRef<() => void>(() => {});
  loadMore.current = () => {
    if (cursor && !loading && !hits) void load(cursor);
  };
  useEffect(() => {
    const el = more.current;
    if (!el) return;
    const io = new IntersectionObserver((es) => {
      if (es.some((e) => e.isIntersecting)) loadMore.current();
    });
    io.observe(el);
    return () => io.disconnect();
  });

  const set = (patch: Partial<ListRoute>, replace = false) => navigate({ ...route, ...patch }, replace);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set({ q: query.trim() });
  };

  const sid = (route.sid ?? '').trim().toLowerCase();
  const agent = route.agent ?? '';
  const rowsShown = rows.filter((r) => (!sid || r.id.toLowerCase().includes(sid)) && (!agent || r.open_episode?.provider === agent));
  const hitsShown = hits?.filter((h) => (!sid || h.session.toLowerCase().includes(sid)) && (!agent || h.agent === agent)) ?? null;
  const shown: unknown[] = hitsShown ?? rowsShown;
  const focusRow = (i: number) => {
    const n = Math.max(0, Math.min(shown.length - 1, i));
    setSel(n);
    (list.current?.querySelectorAll<HTMLAnchorElement>('a.open')[n] ?? null)?.focus();
    if (!hits && n >= rowsShown.length - 5 && cursor && !loading) void load(cursor);
  };
  const open = (id: string, at?: number) => (e: React.MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(at ? { kind: 'session', id, at } : { kind: 'session', id });
  };
  /** A hit on a transcript item opens the session at that item (?at=seq). */
  const hitAt = (h: Hit) => (h.kind ? h.seq : undefined);

  return (
    <main className="list-view">
      <h1 className="sr-only">Sessions</h1>
      <search>
      <form className="filters" onSubmit={submit}>
        <label className="grow">
          <span className="sr-only">Search events</span>
          <input ref={search} type="search" placeholder="Search (press /)" value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
        <label>
          <span className="lbl">State</span>
          <select value={route.state} onChange={(e) => set({ state: e.target.value })}>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="lbl">Project</span>
          <select value={route.project} onChange={(e) => set({ project: e.target.value, ws: '' })}>
            <option value="">all</option>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.path.split('/').pop() || p.path} ({p.sessions})
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          <span className="lbl">Workspace</span>
          <input
            type="text"
            placeholder="/path (exact)"
            defaultValue={route.ws}
            key={route.ws}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                set({ ws: (e.target as HTMLInputElement).value.trim(), project: '' });
              }
            }}
          />
        </label>
        <label>
          <span className="lbl">Session id</span>
          <input type="text" placeholder="part of an id" value={route.sid ?? ''} onChange={(e) => set({ sid: e.target.value }, true)} />
        </label>
        <label>
          <span className="lbl">Agent</span>
          <select value={agent} onChange={(e) => set({ agent: e.target.value })}>
            <option value="">any</option>
            {AGENTS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
        {(route.q || route.state || route.project || route.ws || route.sid || route.agent) && (
          <button type="button" className="quiet" onClick={() => navigate({ kind: 'list', state: '', project: '', ws: '', q: '' })}>
            Clear
          </button>
        )}
      </form>
      </search>
      {error && (
        <p className="banner error" role="alert">
          <strong>{error.code}</strong> {error.message}
        </p>
      )}
      {hitsShown && (
        <p className="count" aria-live="polite">
          {hitsShown.length} {hitsShown.length === 1 ? 'hit' : 'hits'} for “{route.q}”
        </p>
      )}
      {!hitsShown && (sid || agent) && (
        <p className="count" aria-live="polite">
          {rowsShown.length} of the {rows.length} sessions loaded match{cursor ? ' (More loads further ones)' : ''}
        </p>
      )}
      <ol ref={list} className="rows" aria-label={hits ? 'Search hits' : 'Sessions'}>
        {hitsShown
          ? hitsShown.map((h, i) => (
              <li key={`${h.session}:${h.seq}`} className={i === sel ? 'sel' : ''}>
                <a className="open" href={`?s=${encodeURIComponent(h.session)}${hitAt(h) ? `&at=${h.seq}` : ''}`} onClick={open(h.session, hitAt(h))} onFocus={() => setSel(i)}>
                  <span className="title">{shownName(h.title || short(h.session))}</span>
                  <span className="meta">
                    <span className="badge">{h.type}</span> #{h.seq} · score {h.score} · {h.workspace ?? '—'}
                    {h.kind && (
                      <span>
                        {h.agent} {h.role}/{h.kind}
                        {h.tool ? ` ${h.tool}` : ''}
                        {h.files?.length ? ` [${h.files.join(', ')}]` : ''} · {age(h.at)}
                      </span>
                    )}
                  </span>
                  <span className="snippet">
                    {snippetParts(h.snippet).map((p, k) =>
                      p.hit ? (
                        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one snippet never reorder
                        <mark key={k}>{p.text}</mark>
                      ) : (
                        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one snippet never reorder
                        <span key={k}>{p.text}</span>
                      ),
                    )}
                  </span>
                </a>
              </li>
            ))
          : rowsShown.map((r, i) => (
              <li key={r.id} className={i === sel ? 'sel' : ''}>
                <a className="open" href={`?s=${encodeURIComponent(r.id)}`} onClick={open(r.id)} onFocus={() => setSel(i)}>
                  <span className="title">{shownName(r.title || short(r.id))}</span>
                  <span className="meta">
                    <span className={`badge st-${r.state}`}>{r.state}</span>
                    <span className={`badge ptr-${(r.pointer_status ?? 'none').toLowerCase()}`}>{r.pointer_status ?? 'no pointer'}</span>
                    {r.open_episode && <span className="badge ep">{r.open_episode.provider} open</span>}
                    {(r.corrupt || r.conflict) && <span className="badge bad">{r.corrupt ? 'corrupt' : 'conflict'}</span>}
                    <span>{age(r.last_touched_at)}</span>
                    <span>{r.events} events</span>
                    <span className="path">{r.workspace ?? '—'}</span>
                  </span>
                </a>
              </li>
            ))}
      </ol>
      {!hits && rowsShown.length === 0 && !loading && !error && <p className="empty">No sessions here. Start one with the CLI: baton session start</p>}
      {!hits && cursor && (
        <button ref={more} type="button" className="more" disabled={loading} onClick={() => void load(cursor)}>
          {loading ? 'Loading…' : 'More'}
        </button>
      )}
    </main>
  );
}
