// Flag values checked at the edge, before any file is touched (docs/cli.md, "Numbers,
// durations and ids"): one rule per kind of value, so every command refuses the same way.
import { parseDuration } from '../core/duration.ts';
import { type ErrorCode, fail } from '../core/errors.ts';
import { checkSessionId } from '../core/ids.ts';

/**
 * A whole number written in decimal digits (no sign, exponent, hex or fraction), at least
 * `min`, at most `max` (default: the largest integer JSON and SQLite both hold exactly).
 */
export function parseCount(value: string | number, flag: string, opts: { min?: number; max?: number; code?: ErrorCode } = {}): number {
  const { min = 0, max = Number.MAX_SAFE_INTEGER, code = 'USAGE' } = opts;
  const text = String(value).trim();
  const n = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    fail(code, `${flag} must be a whole number ${range}, got ${JSON.stringify(value)}`, { flag, value: String(value) });
  }
  return n;
}

/** A duration flag (90s, 10m, 2h, 7d), more than zero unless allowZero. */
export function parseDurationFlag(value: string, flag: string, opts: { allowZero?: boolean } = {}): number {
  return parseDuration(value, { flag, allowZero: opts.allowZero });
}

/** A flag naming a session exactly (not a prefix): the id rule, WS003. */
export function parseSessionIdFlag(value: string, flag: string): string {
  try {
    return checkSessionId(value);
  } catch {
    fail('WS003', `${flag} ${JSON.stringify(value)} is not a session id: it must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, { flag, rule: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' });
  }
}

/** A session title: text that is not blank (a session named "" cannot be told apart in a list). */
export function parseTitle(value: string): string {
  if (value.trim() === '') fail('USAGE', `the title is empty: give the session a name, got ${JSON.stringify(value)}`, { value });
  return value;
}
