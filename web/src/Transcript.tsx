// A session's transcript (web.md, Transcript): its turns from thread/read's includeTurns,
// older ones through thread/turns/list, new transcript.item events appended live; and
// "Continue in …" (thread/continue's plan: the command to copy and the handoff block).
// Invariant: agent text reaches the DOM only as text nodes (markdown.tsx builds elements;
// tool input and results are <pre> text), and an item is shown once per seq (a record that
// supersedes an earlier one takes its place, as src/ops/turns.ts folds them).
import { type ReactNode, memo, useCallback, useEffect, useRef, useState } from 'react';
import type { ContinuePlan, ThreadContinueParams, Turn, TurnItem } from '../../src/client/index.ts';
import { describeError, onConn, rpc } from './api.ts';
import { shownName } from './format.ts';
import { Markdown } from './markdown.tsx';

type Refusal = { code: string; message: string };
type Agent = NonNullable<ThreadContinueParams['in']>;

export const AGENTS: Agent[] = ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'droid', 'opencode', 'kilo', 'pi'];
const PAGE_TURNS = 10;

const hasSeq = (turns: Turn[], seq: number) => turns.some((t) => t.items.some((i) => i.seq === seq));

/** One item into the turns (oldest first): replaces what it supersedes, starts a turn at a user message, else joins the newest turn. */
export function addItem(turns: Turn[], item: TurnItem): Turn[] {
  if (hasSeq(turns, item.seq)) return turns;
  if (item.supersedes !== undefined && hasSeq(turns, item.supersedes))
    return turns.map((t) => (t.items.some((i) => i.seq === item.supersedes) ? { ...t, items: t.items.map((i) => (i.seq === item.supersedes ? item : i)) } : t));
  const last = turns[turns.length - 1];
  if (!last || (item.role === 'user' && item.kind === 'message')) return [...turns, { id: item.seq, startedAt: item.at, agent: item.agent, items: [item] }];
  return [...turns.slice(0, -1), { ...last, items: [...last.items, item] }];
}

const maxSeq = (turns: Turn[]) => turns.reduce((m, t) => t.items.reduce((n, i) => Math.max(n, i.seq), m), 0);
const time = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/** Memoized on its props (the session, the seq to show): the session page's clock tick re-renders nothing here. */
export const Transcript = memo(function Transcript({ id, at }: { id: string; at?: number }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [nextBefore, setNextBefore] = useState<number | null>(null);
  const [total, setTotal] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<Refusal | null>(null);
  const scrolled = useRef<number | null>(null);
  const seen = useRef(new Set<number>());

  const loadFirst = useCallback(async () => {
    try {
      const c = await rpc();
      const r = await c.threadRead({ threadId: id, includeTurns: { limit: PAGE_TURNS } });
      const page = r.turns ?? { turns: [], nextBefore: null, totalItems: 0 };
      const first = [...page.turns].reverse();
      for (const t of first) for (const i of t.items) seen.current.add(i.seq);
      const top = maxSeq(first);
      // Items that arrived live while the page was on its way are kept when the page does not hold them.
      setTurns((live) => live.flatMap((t) => t.items).reduce((acc, i) => (i.seq > top ? addItem(acc, i) : acc), first));
      setNextBefore(page.nextBefore);
      setTotal((n) => Math.max(n, page.totalItems));
      setLoaded(true);
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
  }, [id]);

  const loadOlder = useCallback(async () => {
    if (nextBefore === null || loading) return;
    setLoading(true);
    try {
      const c = await rpc();
      const r = await c.threadTurnsList({ threadId: id, before: nextBefore, limit: PAGE_TURNS });
      for (const t of r.data) for (const i of t.items) seen.current.add(i.seq);
      setTurns((cur) => [...[...r.data].reverse().filter((t) => !cur.some((x) => x.id === t.id)), ...cur]);
      setNextBefore(r.nextBefore);
      setTotal((n) => Math.max(n, r.totalItems));
    } catch (e) {
      setError(describeError(e));
    } finally {
      setLoading(false);
    }
  }, [id, nextBefore, loading]);

  // Live: the session view's subscription delivers event/appended; the transcript takes its items.
  useEffect(() => {
    let live = true;
    let stop: (() => void) | null = null;
    let on: unknown = null;
    const attach = async () => {
      const c = await rpc();
      if (!live || on === c) return;
      stop?.();
      on = c;
      stop = c.onEvent((n) => {
        if (n.threadId !== id || n.event.type !== 'transcript.item') return;
        if (seen.current.has(n.event.seq)) return;
        seen.current.add(n.event.seq);
        const item = { ...(n.event.payload as unknown as Omit<TurnItem, 'seq'>), seq: n.event.seq } as TurnItem;
        setTurns((t) => addItem(t, item));
        if (item.supersedes === undefined) setTotal((x) => x + 1);
      });
    };
    void attach();
    void loadFirst();
    const off = onConn((s) => {
      if (s === 'up') void attach();
    });
    return () => {
      live = false;
      off();
      stop?.();
    };
  }, [id, loadFirst]);

  // Opened at an item (a search hit): page back until its turn is here, then scroll to it once.
  useEffect(() => {
    if (!at || !loaded || scrolled.current === at) return;
    if (!hasSeq(turns, at)) {
      const oldest = turns[0]?.id ?? Number.POSITIVE_INFINITY;
      if (nextBefore !== null && oldest > at && !loading) void loadOlder();
      return;
    }
    const el = document.getElementById(`item-${at}`);
    if (!el) return;
    scrolled.current = at;
    if (el instanceof HTMLDetailsElement) el.open = true;
    el.closest('details')?.setAttribute('open', '');
    el.scrollIntoView({ block: 'center' });
    el.focus({ preventScroll: true });
  }, [at, loaded, turns, nextBefore, loading, loadOlder]);

  return (
    <section aria-labelledby="h-transcript" className="transcript panel">
      <h2 id="h-transcript">
        Transcript <span className="muted">({total} items)</span>
      </h2>
      <ContinueIn id={id} />
      {error && (
        <p className="banner error" role="alert">
          <strong>{error.code}</strong> {error.message}
        </p>
      )}
      {!loaded && !error && <p className="muted">Loading the transcript…</p>}
      {loaded && turns.length === 0 && <p className="muted">No transcript items: the agent's hooks record them at each turn end (docs/transcripts.md).</p>}
      {nextBefore !== null && (
        <button type="button" className="more" disabled={loading} onClick={() => void loadOlder()}>
          {loading ? 'Loading…' : 'Load older turns'}
        </button>
      )}
      <ol className="turns" aria-label="Turns">
        {turns.map((t) => (
          <TurnView key={t.id} turn={t} at={at} />
        ))}
      </ol>
    </section>
  );
});

function TurnView({ turn, at }: { turn: Turn; at?: number }) {
  // A tool's result is shown inside its call (same call_id, same turn); a result without its call stands alone.
  const calls = new Set(turn.items.filter((i) => i.kind === 'tool_call' && i.tool).map((i) => i.tool?.call_id));
  const results = new Map<string, TurnItem[]>();
  for (const i of turn.items)
    if (i.kind === 'tool_result' && i.tool && calls.has(i.tool.call_id)) results.set(i.tool.call_id, [...(results.get(i.tool.call_id) ?? []), i]);
  return (
    <li className="turn">
      <p className="turn-head muted">
        Turn at <time dateTime={turn.startedAt}>{time(turn.startedAt)}</time> · {turn.agent}
        {turn.itemsOmitted ? ` · ${turn.itemsOmitted} items after its request left out (over the page's bound)` : ''}
      </p>
      {turn.items.map((i) =>
        i.kind === 'tool_result' && i.tool && calls.has(i.tool.call_id) ? null : <ItemView key={i.seq} item={i} at={at} results={i.tool ? (results.get(i.tool.call_id) ?? []) : []} />,
      )}
    </li>
  );
}

function Cut({ item }: { item: TurnItem }) {
  if (!item.truncated) return null;
  return (
    <p className="cut" data-testid="cut">
      ✂ cut: the whole was {item.truncated.original_bytes} bytes (sha256 <code title={item.truncated.sha256}>{item.truncated.sha256.slice(0, 12)}</code>); head and tail kept
    </p>
  );
}

function ItemView({ item, at, results }: { item: TurnItem; at?: number; results: TurnItem[] }) {
  const hl = item.seq === at || results.some((r) => r.seq === at) ? ' hl' : '';
  const common = { id: `item-${item.seq}`, 'data-seq': item.seq, tabIndex: -1 };
  const head = (who: ReactNode) => (
    <header className="ti-head">
      <span className="ti-who">{who}</span>
      <span className="seq">#{item.seq}</span>
      <time dateTime={item.at}>{time(item.at)}</time>
    </header>
  );
  if (item.kind === 'tool_call' || item.kind === 'tool_result') {
    const name = shownName(item.tool?.name ?? item.kind);
    return (
      <details className={`ti ti-tool${hl}`} {...common} open={hl !== '' || undefined}>
        <summary>
          <span className="ti-who">{item.kind === 'tool_call' ? `→ ${name}` : `← ${name} result`}</span>
          {item.files && item.files.length > 0 && <span className="ti-files"> {shownName(item.files.join(', '))}</span>}
          <span className="seq"> #{item.seq}</span>
        </summary>
        {item.tool?.input !== undefined && <pre className="ti-input">{JSON.stringify(item.tool.input, null, 2)}</pre>}
        {item.kind === 'tool_result' && item.text && <pre className="ti-result">{item.text}</pre>}
        <Cut item={item} />
        {results.map((r) => (
          <div key={r.seq} id={`item-${r.seq}`} data-seq={r.seq} tabIndex={-1} className={`ti-res${r.seq === at ? ' hl' : ''}`}>
            <p className="muted">
              Result #{r.seq}
              {r.files?.length ? ` · ${shownName(r.files.join(', '))}` : ''}
            </p>
            <pre className="ti-result">{r.text}</pre>
            <Cut item={r} />
          </div>
        ))}
      </details>
    );
  }
  if (item.kind === 'reasoning' || item.kind === 'compaction') {
    return (
      <details className={`ti ti-${item.kind}${hl}`} {...common}>
        <summary>{item.kind === 'reasoning' ? 'Reasoning (as the agent shows it)' : 'Compaction summary'}</summary>
        <Markdown text={item.text} />
        <Cut item={item} />
      </details>
    );
  }
  const who = item.role === 'assistant' ? (item.model ? `Assistant · ${shownName(item.model)}` : 'Assistant') : item.role === 'user' ? 'User' : item.role;
  return (
    <article className={`ti ti-${item.role}${hl}`} {...common} aria-label={`${who} #${item.seq}`}>
      {head(who)}
      <Markdown text={item.text} />
      <Cut item={item} />
    </article>
  );
}

/** "Continue in …": thread/continue's plan for an agent (nothing runs), or its refusal. */
function ContinueIn({ id }: { id: string }) {
  const [agent, setAgent] = useState<'' | Agent>('');
  const [plan, setPlan] = useState<ContinuePlan | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [copied, setCopied] = useState(false);
  const ask = async () => {
    setPlan(null);
    setRefusal(null);
    setCopied(false);
    try {
      const c = await rpc();
      const r = await c.threadContinue({ threadId: id, ...(agent ? { in: agent } : {}) });
      setPlan(r.plan);
    } catch (e) {
      setRefusal(describeError(e));
    }
  };
  return (
    <div className="continue-in">
      <form
        className="actions"
        onSubmit={(e) => {
          e.preventDefault();
          void ask();
        }}
      >
        <label htmlFor="continue-agent">Continue in</label>
        <select id="continue-agent" value={agent} onChange={(e) => setAgent(e.target.value as '' | Agent)}>
          <option value="">the agent it last ran in</option>
          {AGENTS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
        <button type="submit">Show the command</button>
      </form>
      {refusal && (
        <p className="banner error" role="alert" data-testid="continue-refusal">
          <strong>{refusal.code}</strong> {refusal.message}
        </p>
      )}
      {plan && (
        <div data-testid="continue-plan">
          <p className="muted">
            {plan.mode === 'resume' ? `Resumes ${plan.agent}'s own session` : `Starts ${plan.agent} with the handoff block`} in <code>{plan.cwd}</code>; run it in a terminal (the page runs nothing):
          </p>
          <pre className="cmd" data-testid="continue-command">
            {plan.command}
          </pre>
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard?.writeText(plan.command).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? 'Copied' : 'Copy the command'}
          </button>
          {plan.block && (
            <details className="handoff">
              <summary>The handoff block ({plan.block.length} characters)</summary>
              <pre className="ctx">{plan.block}</pre>
            </details>
          )}
        </div>
      )}
    </div>
  );
}
