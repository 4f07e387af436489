// Small display helpers shared by the views.

/** How far in the future a past instant may seem from another machine's clock: shown as "just now". */
const SKEW_MS = 60_000;

/**
 * "42s", "5m", "3h", "2d" ago, or "in 5m" for a future time (a lease's expiry). A past
 * instant a little ahead of this clock (skew between the writer's clock and the browser's)
 * is "just now", never "in 2s"; pass future = true for instants that are meant to be ahead.
 */
export function age(iso: string | null | undefined, now = Date.now(), future = false): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '—';
  if (!future && t > now && t - now <= SKEW_MS) return 'just now';
  const s = Math.round((now - t) / 1000);
  const a = Math.abs(s);
  const v = a < 60 ? `${a}s` : a < 3600 ? `${Math.floor(a / 60)}m` : a < 86400 ? `${Math.floor(a / 3600)}h` : `${Math.floor(a / 86400)}d`;
  return s >= 0 ? `${v} ago` : `in ${v}`;
}

export function short(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

/** One line of an event for the timeline: what it says, without the envelope. */
export function eventText(ev: { type: string; payload: unknown }): string {
  const p = (ev.payload ?? {}) as Record<string, unknown>;
  const holder = p.holder as { surface?: string; instance_id?: string } | undefined;
  if (holder && typeof p.lease_until === 'string') return `${holder.surface} (${holder.instance_id}) until ${p.lease_until.slice(0, 19).replace('T', ' ')}`;
  if (ev.type === 'session.resumed') return `resumed from seq ${p.from_seq}${typeof p.workspace === 'string' ? ` in ${p.workspace}` : ''}`;
  if (ev.type.startsWith('pointer.')) return `${p.status} rev ${p.revision}${typeof p.pointer_text === 'string' ? `: ${p.pointer_text.replace(/\s+/g, ' ')}` : ''}`;
  if (ev.type === 'ref.captured') return `ref of ${p.source} v${p.source_version} (${String(p.digest ?? '').slice(0, 12)})`;
  for (const k of ['text', 'title', 'pointer_text', 'message', 'path', 'reason', 'episode']) {
    if (typeof p[k] === 'string' && p[k] !== '') return (p[k] as string).replace(/\s+/g, ' ');
  }
  return JSON.stringify(p);
}

/** The index's snippet marks: STX opens a match, ETX closes it (index.md). */
export type SnippetPart = { text: string; hit: boolean };

/** Splits a snippet at its marks into plain and matched parts (rendered as text nodes, never HTML). */
export function snippetParts(snippet: string): SnippetPart[] {
  const out: SnippetPart[] = [];
  let hit = false;
  let cur = '';
  for (const ch of snippet) {
    if (ch === '\u0002' || ch === '\u0003') {
      if (cur) out.push({ text: cur, hit });
      cur = '';
      hit = ch === '\u0002';
    } else cur += ch;
  }
  if (cur) out.push({ text: cur, hit });
  return out;
}

/**
 * A name from a transcript (a tool, a file, a model, a title) as shown: the characters that
 * override or embed a text direction (U+202A–U+202E, U+2066–U+2069) become U+FFFD, so
 * `invoice\u202Etxt.exe` cannot read as `invoiceexe.txt`.
 */
export function shownName(s: string): string {
  return s.replace(/[\u202A-\u202E\u2066-\u2069]/g, '\uFFFD');
}

