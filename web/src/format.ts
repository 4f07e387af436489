// Small display helpers shared by the views.

/** "42s", "5m", "3h", "2d" ago (or "in 5m" for a future time). */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '—';
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
