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
// Letters that compatibility decomposition (NFKD) leaves whole, spelled out in ASCII.
const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ħ: 'h', ŋ: 'ng' };

/** A title as an id prefix: letters with accents transliterated (café → cafe), the rest dashes. */
export function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđðþłıħŋ]/g, (c) => LETTERS[c])
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
