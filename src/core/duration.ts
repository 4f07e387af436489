// Durations on the command line: 90s, 10m, 2h, 7d (and ms for tests and Gemini timeouts).
import { fail } from './errors.ts';

const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest duration any flag takes: 100 years (a lease or expiry beyond it is not a date a log should carry). */
export const MAX_DURATION_MS = 36_500 * UNIT.d;

/**
 * `90s`, `10m`, `2h`, `7d`: a whole number and a unit, at most MAX_DURATION_MS, and at least
 * 1 ms unless `allowZero` (a lease or an expiry of zero means nothing). USAGE otherwise.
 */
export function parseDuration(text: string, opts: { flag?: string; allowZero?: boolean } = {}): number {
  const what = opts.flag ? `${opts.flag} ` : '';
  const m = /^(\d{1,16})(ms|s|m|h|d)$/.exec(String(text).trim());
  if (!m) fail('USAGE', `${what}invalid duration ${JSON.stringify(text)}: use forms like 90s, 10m, 2h, 7d`, { value: text });
  const ms = Number(m[1]) * UNIT[m[2]];
  if (ms > MAX_DURATION_MS) fail('USAGE', `${what}duration ${JSON.stringify(text)} is longer than 36500d`, { value: text, max_ms: MAX_DURATION_MS });
  if (ms === 0 && !opts.allowZero) fail('USAGE', `${what}duration ${JSON.stringify(text)} must be longer than zero`, { value: text });
  return ms;
}

export function formatDuration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s}s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m}m`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.round(h / 24)}d`;
}
