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
// Escaped, not spelled: the hook bundle stays ASCII (scripts/build.mjs checks it), so V8 keeps
// its source as one byte a character (docs/adr/0018).
const LETTERS: Record<string, string> = {
  '\u00df': 'ss', // ß
  '\u00e6': 'ae', // æ
  '\u0153': 'oe', // œ
  '\u00f8': 'o', // ø
  '\u0111': 'd', // đ
  '\u00f0': 'd', // ð
  '\u00fe': 'th', // þ
  '\u0142': 'l', // ł
  '\u0131': 'i', // ı
  '\u0127': 'h', // ħ
  '\u014b': 'ng', // ŋ
};

/** A title as an id prefix: letters with accents transliterated (café → cafe), the rest dashes. */
export function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[\u00df\u00e6\u0153\u00f8\u0111\u00f0\u00fe\u0142\u0131\u0127\u014b]/g, (c) => LETTERS[c])
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
