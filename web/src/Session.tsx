// A session (web.md, A session): header and banners, the pointer panel, lease and the
// continue actions, refs, artifacts, episodes with their frozen start contexts, the
// transcript (Transcript.tsx) and the
// virtualised timeline fed by event/replay pages and kept live by event/subscribe.
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import type { EpisodeListResult, EventAppendedNotification, PointerGetResult, ThreadReadResult } from '../../src/client/index.ts';
import { nextAction, pointerAgeSeconds } from '../../src/pointer/rules.ts';
import { authFetch, describeError, onConn, rpc } from './api.ts';
import { age, eventText, shownName } from './format.ts';
import { navigate } from './route.ts';
import { Transcript } from './Transcript.tsx';
import { Window } from './Window.tsx';

type Thread = ThreadReadResult['thread'];
type Ev = EventAppendedNotification['event'];
type Episode = EpisodeListResult['data'][number];
type Refusal = { code: string; message: string };
interface Artifact {
  name: string;
  sha256: string;
  bytes: number;
}

const ROW = 52;

/** A replay page's events (the generated type of the array reads as a union: one cast, here). */
const pageEvents = (page: { events: unknown }): Ev[] => page.events as Ev[];
const PAGE_BYTES = 192 * 1024;

function useNow(ms = 5000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function Session({ id, at }: { id: string; at?: number }) {
  const [thread, setThread] = useState<Thread | null>(null);
  const [pointer, setPointer] = useState<PointerGetResult | null>(null);
  const [episodes, setEpisodes] = useState<Episode[]>([]);
  const [artifacts, setArtifacts] = useState<Artifact[] | null>(null);
  const [total, setTotal] = useState(0);
  const [, setTick] = useState(0);
  const [loadError, setLoadError] = useState<Refusal | null>(null);
  const [corrupt, setCorrupt] = useState<Refusal | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [context, setContext] = useState<{ title: string; text: string } | null>(null);
  const [jump, setJump] = useState<{ index: number; nonce: number } | null>(null);
  const [detail, setDetail] = useState<Ev | null>(null);
  const events = useRef(new Map<number, Ev>());
  const lastSeq = useRef(0);
  const fetching = useRef(false);
  const want = useRef<[number, number]>([0, 0]);
  const now = useNow();

  // Fetch the pages the window shows (seq = index + 1), one request at a time.
  const fill = useCallback(async () => {
    if (fetching.current) return;
    fetching.current = true;
    try {
      const c = await rpc();
      for (;;) {
        const [a, b] = want.current;
        let miss = -1;
        for (let s = a + 1; s <= b + 1; s++)
          if (!events.current.has(s)) {
            miss = s;
            break;
          }
        if (miss < 0) break;
        const page = await c.eventReplay({ threadId: id, after: miss - 1, maxBytes: PAGE_BYTES });
        const got = pageEvents(page);
        for (const ev of got) events.current.set(ev.seq, ev);
        if (events.current.size > 20_000) {
          // Keep memory bounded: drop what is far from the view.
          for (const s of events.current.keys()) if (Math.abs(s - a) > 5000) events.current.delete(s);
        }
        setTick((t) => t + 1);
        if (got.length === 0) break;
      }
    } catch (e) {
      const r = describeError(e);
      if (r.code === 'WS201') setCorrupt(r);
      else setRefusal(r);
    } finally {
      fetching.current = false;
    }
  }, [id]);

  const loadArtifacts = useCallback(() => {
    authFetch(`artifacts/${encodeURIComponent(id)}/`)
      .then((r) => (r.ok ? r.json() : null))
      .then((j: { data: Artifact[] } | null) => setArtifacts(j?.data ?? null))
      .catch(() => setArtifacts(null));
  }, [id]);

  // The thread first; on the first load the tail of the log next (the view opens at the end),
  // then the slower panels (the connection runs one request at a time).
  const refresh = useCallback(
    async (first = false) => {
      const c = await rpc();
      const t = await c.threadRead({ threadId: id });
      const last = t.thread.manifest.status.last_event_seq;
      setThread(t.thread);
      setTotal((n) => Math.max(n, last));
      if (first && !fetching.current) {
        fetching.current = true;
        try {
          const page = await c.eventReplay({ threadId: id, after: Math.max(0, last - 40), maxBytes: PAGE_BYTES });
          for (const ev of pageEvents(page)) events.current.set(ev.seq, ev);
          setTick((x) => x + 1);
          // Past the last event the manifest knows: a bad line there is refused with WS201 (the banner).
          await c.eventReplay({ threadId: id, after: Math.max(last, page.nextAfter), maxBytes: 64 * 1024 });
        } catch (e) {
          const r = describeError(e);
          if (r.code === 'WS201') setCorrupt(r);
        } finally {
          fetching.current = false;
        }
        void fill();
        loadArtifacts();
      }
      void c.pointerGet({ threadId: id }).then(setPointer, () => setPointer(null));
      void c.episodeList({ threadId: id }).then(
        (e) => setEpisodes(e.data),
        () => {},
      );
      return t.thread;
    },
    [id, fill, loadArtifacts],
  );

  const onRange = useCallback(
    (first: number, last: number) => {
      want.current = [first, last];
      void fill();
    },
    [fill],
  );

  // Load, subscribe from the last seq, and do both again after a reconnect.
  useEffect(() => {
    let live = true;
    let subId: string | null = null;
    let stop: (() => void) | null = null;
    let refreshTimer: ReturnType<typeof setTimeout> | null = null;
    // One subscription per session view: a connect while one runs waits for it (the initial
    // load and the connection's first 'up' would otherwise subscribe twice), and the old
    // subscription is ended before a new one starts. Events are keyed by seq: one seen is dropped.
    let running: Promise<void> | null = null;
    let again = false;
    const connect = async (): Promise<void> => {
      if (running) {
        again = true;
        return running;
      }
      running = subscribe().finally(() => {
        running = null;
      });
      await running;
      if (again && live) {
        again = false;
        // Only a connection that came up again needs a new subscription.
        const c = await rpc();
        if (subOn !== c) await connect();
      }
    };
    let subOn: unknown = null;
    const subscribe = async () => {
      try {
        const t = await refresh(true);
        if (!live) return;
        setLoadError(null);
        const c = await rpc();
        if (lastSeq.current === 0) lastSeq.current = t.manifest.status.last_event_seq;
        stop?.();
        stop = c.onEvent((n) => {
          if (n.subscriptionId !== subId) return;
          const ev = n.event;
          if (events.current.has(ev.seq)) return;
          events.current.set(ev.seq, ev);
          lastSeq.current = Math.max(lastSeq.current, ev.seq);
          setTotal((x) => Math.max(x, ev.seq));
          setTick((x) => x + 1);
          if (ev.type.startsWith('artifact.')) loadArtifacts();
          if (!refreshTimer)
            refreshTimer = setTimeout(() => {
              refreshTimer = null;
              if (live) void refresh().catch(() => {});
            }, 300);
        });
        if (subId && subOn === c) {
          const old = subId;
          subId = null;
          await c.eventUnsubscribe({ subscriptionId: old }).catch(() => {});
        }
        const s = await c.eventSubscribe({ threadId: id, after: lastSeq.current });
        subId = s.subscriptionId;
        subOn = c;
      } catch (e) {
        if (live) setLoadError(describeError(e));
      }
    };
    void connect();
    const off = onConn((s) => {
      if (s === 'up') void connect();
    });
    return () => {
      live = false;
      off();
      stop?.();
      if (refreshTimer) clearTimeout(refreshTimer);
      const sid = subId;
      if (sid) void rpc().then((c) => c.eventUnsubscribe({ subscriptionId: sid }).catch(() => {}));
    };
  }, [id, refresh, loadArtifacts]);

  const act = async (what: string, f: () => Promise<unknown>) => {
    setRefusal(null);
    setNotice(null);
    try {
      await f();
      setNotice(`${what}: done`);
      await refresh();
    } catch (e) {
      setRefusal(describeError(e));
    }
  };

  const openContext = async (ep: Episode) => {
    const file = (events.current.get(ep.opened_seq)?.payload as { context_file?: string } | undefined)?.context_file;
    const name = file?.startsWith('contexts/') ? file.slice('contexts/'.length) : null;
    let text: string;
    if (!name) {
      // The opening event may not be loaded: ask for it.
      const c = await rpc();
      const page = await c.eventReplay({ threadId: id, after: ep.opened_seq - 1, maxBytes: 64 * 1024 });
      const ev = pageEvents(page).find((e) => e.seq === ep.opened_seq);
      const f = (ev?.payload as { context_file?: string } | undefined)?.context_file;
      if (!f?.startsWith('contexts/')) return setContext({ title: `Episode ${ep.episode}`, text: 'This episode was given no start context.' });
      return openContextFile(ep, f.slice('contexts/'.length));
    }
    return openContextFile(ep, name);
    async function openContextFile(e: Episode, n: string) {
      const r = await authFetch(`contexts/${encodeURIComponent(id)}/${encodeURIComponent(n)}`);
      text = r.ok ? await r.text() : `Could not read the start context (${r.status}).`;
      setContext({ title: `Start context of episode ${e.episode} (${e.provider}, ${e.opened_at})`, text });
    }
  };

  if (!thread) {
    return (
      <main className="session-view">
        <p>
          <a href="./" onClick={back}>
            ← Sessions
          </a>
        </p>
        {loadError ? (
          <p className="banner error" role="alert">
            <strong>{loadError.code}</strong> {loadError.message}
          </p>
        ) : (
          <p aria-live="polite">Loading session…</p>
        )}
      </main>
    );
  }

  const m = thread.manifest;
  const lease = thread.lease;
  const mine = lease?.holder.surface === 'web';
  const held = lease?.valid && !mine;
  const ptrAge = pointer ? pointerAgeSeconds(pointer.updated_at, new Date(now)) : -1;
  const status = (pointer?.status ?? null) as 'CLEAN' | 'DIRTY' | 'CLEARED' | null;
  const epByStart = new Map(episodes.map((e) => [e.opened_seq, e]));

  const row = (i: number): ReactNode => {
    const seq = i + 1;
    const ev = events.current.get(seq);
    const ep = epByStart.get(seq);
    if (!ev) return <div className="ev loading">#{seq} …</div>;
    return (
      <button type="button" className={`ev t-${ev.type.split('.')[0]} ${ep ? 'ep-start' : ''}`} onClick={() => setDetail(ev)}>
        <span className="ev-head">
          <span className="seq">#{ev.seq}</span>
          <span className="type">{ev.type}</span>
          <span className="who">
            {ev.actor} · {ev.surface}
          </span>
          <time dateTime={ev.ts}>{ev.ts.slice(0, 19).replace('T', ' ')}</time>
        </span>
        <span className="ev-text">{ep ? `▶ episode ${ep.episode} (${ep.provider}, ${ep.source})` : eventText(ev)}</span>
      </button>
    );
  };

  return (
    <main className="session-view">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href="./" onClick={back}>
          ← Sessions
        </a>
      </nav>
      <header className="s-head">
        <h1>{shownName(m.title)}</h1>
        <p className="meta">
          <span className={`badge st-${m.status.state}`}>{m.status.state}</span> <code>{thread.id}</code> · {m.workspace?.cwd ?? 'no workspace'}
          {m.workspace?.git_branch ? ` (${m.workspace.git_branch})` : ''} · {m.status.last_event_seq} events · touched {age(m.status.last_touched_at, now)}
        </p>
      </header>
      {corrupt && (
        <p className="banner error" role="alert">
          <strong>Corrupt log ({corrupt.code})</strong> {corrupt.message}
        </p>
      )}
      {thread.conflict && (
        <p className="banner warn" role="alert">
          <strong>projection_conflict</strong> {thread.conflict.detail} (detected {age(thread.conflict.detected_at, now)})
        </p>
      )}
      {thread.teamConflicts.length > 0 && (
        <div className="banner warn" role="alert" data-testid="team-conflicts">
          <strong>Team conflict</strong> events this machine wrote after it lost ownership are kept aside, not in the log:
          <ul>
            {thread.teamConflicts.map((c) => (
              <li key={c.file}>
                <code>{c.file}</code>: {c.events} event(s) from {c.machine} at epoch {c.epoch}
              </li>
            ))}
          </ul>
          Once this machine owns the session and holds its lease, <code>baton team resolve {thread.id} --all</code> re-appends them as notes.
        </div>
      )}
      {thread.corrupt && !corrupt && (
        <p className="banner error" role="alert">
          <strong>Corrupt log</strong> at line {thread.corrupt.line}: {thread.corrupt.reason} — run baton session verify {thread.id}
        </p>
      )}
      {refusal && (
        <p className="banner error" role="alert" data-testid="refusal">
          <strong>{refusal.code}</strong> {refusal.message}
        </p>
      )}
      {notice && (
        <p className="banner ok" role="status">
          {notice}
        </p>
      )}
      <div className="panels">
        <section aria-labelledby="h-pointer" className="panel">
          <h2 id="h-pointer">Pointer</h2>
          {pointer?.status ? (
            <>
              <p>
                <span className={`badge ptr-${pointer.status.toLowerCase()}`}>{pointer.status}</span> gen <code>{pointer.generation}</code> rev {pointer.revision} · {ptrAge >= 0 ? `${ptrAge}s old` : 'age unknown'}
              </p>
              <p>
                NEXT_ACTION <code>{nextAction(status, ptrAge, 0)}</code>
                {pointer.task_id && (
                  <>
                    {' '}
                    · task <code>{pointer.task_id}</code>
                  </>
                )}
              </p>
              {pointer.pointer_text && <pre className="ptext">{pointer.pointer_text}</pre>}
            </>
          ) : (
            <p className="muted">No pointer published.</p>
          )}
        </section>
        <section aria-labelledby="h-lease" className="panel">
          <h2 id="h-lease">Lease</h2>
          {lease ? (
            <p data-testid="lease">
              Held by <strong>{lease.holder.surface}</strong> ({lease.holder.instance_id}, {lease.holder.actor}) until{' '}
              <time dateTime={lease.lease.lease_until}>{lease.lease.lease_until.slice(0, 19).replace('T', ' ')}</time> — {lease.valid ? `expires ${age(lease.lease.lease_until, now, true)}` : 'expired'}
            </p>
          ) : (
            <p className="muted">No lease: the session is free.</p>
          )}
          <div className="actions">
            {!held && (
              <button type="button" onClick={() => act('Resume', async () => (await rpc()).threadResume({ threadId: thread.id, steal: !!lease && !lease.valid && !mine }))}>
                {lease && !lease.valid && !mine ? 'Steal expired lease and resume' : 'Resume here'}
              </button>
            )}
            {held && lease && (
              <span className="muted" data-testid="held-note">
                Held by {lease.holder.surface} ({lease.holder.instance_id}): Resume is offered once the lease expires; Release, Archive and Append wait until it is released there.
              </span>
            )}
            <button type="button" disabled={!!held} title={held && lease ? `the lease is held by ${lease.holder.surface}` : undefined} onClick={() => act('Release', async () => (await rpc()).threadRelease({ threadId: thread.id }))}>
              Release
            </button>
            <button
              type="button"
              className="danger"
              disabled={!!held}
              title={held && lease ? `the lease is held by ${lease.holder.surface}` : undefined}
              onClick={() => {
                if (window.confirm(`Archive “${m.title}”?`)) void act('Archive', async () => (await rpc()).threadArchive({ threadId: thread.id }));
              }}
            >
              Archive
            </button>
          </div>
          <Append disabled={!!held} onAppend={(text) => act('Append', async () => (await rpc()).contextAppend({ threadId: thread.id, text }))} />
          <Capture onCapture={(into) => act('Capture ref', async () => (await rpc()).refCapture({ from: thread.id, into }))} />
        </section>
        <section aria-labelledby="h-refs" className="panel">
          <h2 id="h-refs">Refs</h2>
          {thread.refs.length === 0 ? (
            <p className="muted">No refs.</p>
          ) : (
            <ul className="plain">
              {thread.refs.map((r) => (
                <li key={r.digest + r.seq}>
                  <span className={`badge ref-${r.state}`}>{r.state}</span>{' '}
                  <a href={`?s=${encodeURIComponent(r.source)}`} onClick={go(r.source)}>
                    {r.source}
                  </a>{' '}
                  v{r.source_version}/{r.current_version} · <code title={r.digest}>{r.digest.slice(0, 12)}</code> · {r.bytes} B · expires {age(r.expires_at, now, true)}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="h-art" className="panel">
          <h2 id="h-art">Artifacts</h2>
          {artifacts === null ? (
            <p className="muted">Artifacts unavailable.</p>
          ) : artifacts.length === 0 ? (
            <p className="muted">No artifacts.</p>
          ) : (
            <ul className="plain">
              {artifacts.map((a) => (
                <li key={a.name}>
                  <a href={`artifacts/${encodeURIComponent(thread.id)}/${encodeURIComponent(a.name)}`} download={a.name} onClick={download(thread.id, a.name)}>
                    {a.name}
                  </a>{' '}
                  · {a.bytes} B · <code title={a.sha256}>{a.sha256.slice(0, 12)}</code>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="h-eps" className="panel">
          <h2 id="h-eps">Episodes</h2>
          {episodes.length === 0 ? (
            <p className="muted">No episodes yet.</p>
          ) : (
            <ul className="plain">
              {episodes.map((e) => (
                <li key={e.episode}>
                  <button type="button" className="link" onClick={() => setJump({ index: e.opened_seq - 1, nonce: Date.now() })}>
                    {e.provider} · {e.source}
                  </button>{' '}
                  #{e.opened_seq}–{e.closed_seq ?? 'now'} · {e.prompts} {e.prompts === 1 ? 'prompt' : 'prompts'} · {e.outcome ?? 'open'} ·{' '}
                  {e.context_digest && (
                    <button type="button" className="link" onClick={() => void openContext(e)}>
                      start context
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <Transcript id={thread.id} at={at} />
      <section aria-labelledby="h-tl" className="timeline">
        <h2 id="h-tl">
          Timeline <span className="muted">({total} events, newest at the bottom)</span>
        </h2>
        <Window count={total} rowHeight={ROW} renderRow={row} onRange={onRange} tail label="Events" scrollTo={jump} />
      </section>
      {context && (
        <Dialog title={context.title} onClose={() => setContext(null)}>
          <pre className="ctx">{context.text}</pre>
        </Dialog>
      )}
      {detail && (
        <Dialog title={`#${detail.seq} ${detail.type}`} onClose={() => setDetail(null)}>
          <pre className="ctx">{JSON.stringify(detail, null, 2)}</pre>
        </Dialog>
      )}
    </main>
  );
}

function back(e: React.MouseEvent) {
  if (e.metaKey || e.ctrlKey) return;
  e.preventDefault();
  if (history.length > 1 && document.referrer === '') history.back();
  else navigate({ kind: 'list', state: '', project: '', ws: '', q: '' });
}

function go(id: string) {
  return (e: React.MouseEvent) => {
    if (e.metaKey || e.ctrlKey) return;
    e.preventDefault();
    navigate({ kind: 'session', id });
  };
}

function Append({ onAppend, disabled }: { onAppend: (text: string) => Promise<void>; disabled: boolean }) {
  const [text, setText] = useState('');
  return (
    <form
      className="append"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) void onAppend(text).then(() => setText(''));
      }}
    >
      <label htmlFor="append-text">Append context</label>
      <textarea id="append-text" rows={2} value={text} disabled={disabled} onChange={(e) => setText(e.target.value)} />
      <button type="submit" disabled={disabled}>
        Append
      </button>
    </form>
  );
}

function Capture({ onCapture }: { onCapture: (into: string) => Promise<void> }) {
  const [into, setInto] = useState('');
  return (
    <form
      className="capture"
      onSubmit={(e) => {
        e.preventDefault();
        void onCapture(into.trim());
      }}
    >
      <label htmlFor="capture-into">Capture a ref of this session into</label>
      <input id="capture-into" type="text" placeholder="session id" value={into} onChange={(e) => setInto(e.target.value)} />
      <button type="submit">Capture</button>
    </form>
  );
}

function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} onClose={onClose} aria-label={title}>
      <header>
        <h2 className="dlg-title">{title}</h2>
        <button type="button" onClick={() => ref.current?.close()}>
          Close
        </button>
      </header>
      {children}
    </dialog>
  );
}

/** An artifact's download: fetched with the token as a header (the page holds no cookie), handed to the browser as a blob. */
function download(session: string, name: string) {
  return (e: React.MouseEvent) => {
    e.preventDefault();
    void authFetch(`artifacts/${encodeURIComponent(session)}/${encodeURIComponent(name)}`)
      .then((r) => (r.ok ? r.blob() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((b) => {
        const url = URL.createObjectURL(b);
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        a.click();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      })
      .catch(() => {});
  };
}
