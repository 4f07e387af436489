// Durations on the command line: 90s, 10m, 2h, 7d (and ms for tests and Gemini timeouts).
import { fail } from './errors.ts';

const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(String(text).trim());
  if (!m) fail('USAGE', `invalid duration ${JSON.stringify(text)}: use forms like 90s, 10m, 2h, 7d`);
  return Number(m[1]) * UNIT[m[2]];
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
