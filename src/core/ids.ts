// Session ids: the explicit-id rule and generated `<slug>-<base36 ms>` ids (store.md).
import { fail } from './errors.ts';

export const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isValidSessionId(id: string): boolean {
  return SESSION_ID_RE.test(id);
}

/** Refuses an id a caller gave (WS003) before any file is touched. */
export function checkSessionId(id: string): string {
  if (typeof id !== 'string' || !SESSION_ID_RE.test(id)) {
    fail('WS003', `invalid session id ${JSON.stringify(id)}: it must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, {
      rule: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
    });
  }
  return id;
}

/** The title lower-cased to [a-z0-9-], runs of others folded to one '-', at most 40 chars. */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return slug || 'session';
}

export function generatedId(title: string, nowMs: number, suffix?: string): string {
  const base = `${slugOf(title)}-${nowMs.toString(36)}`;
  return suffix ? `${base}-${suffix}` : base;
}
