// The one reading of a WHEN flag (`search`/`files` --since/--until, `history import --since`):
// an age back from now (90s, 10m, 2h, 7d: core/duration's forms and its 36500-day bound) or a
// date: 2026-11-01 (its midnight, UTC), or an ISO 8601 date and time, its zone given or else
// UTC, as every time baton prints is. A date that does not exist (2026-02-31) is refused, not
// rolled over.
import { parseDuration } from '../core/duration.ts';
import { fail } from '../core/errors.ts';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `value` as a time (ms since the epoch); USAGE naming `flag` when it is neither form. */
export function parseWhen(value: string, flag: string, nowMs: number, opts: { allowZero?: boolean } = {}): number {
  const v = value.trim();
  if (/^\d+(ms|s|m|h|d)$/.test(v)) return nowMs - parseDuration(v, { flag, allowZero: opts.allowZero });
  const m = DATE_TIME.exec(v);
  let t = Number.NaN;
  if (m) {
    const iso = m[4] ? `${m[1]}-${m[2]}-${m[3]}T${v.slice(11)}${m[7] ? '' : 'Z'}` : `${v}T00:00:00Z`;
    t = Date.parse(iso);
    // Date.parse rolls 2026-02-31 over to March: the date must read back as given.
    if (new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).toISOString().slice(0, 10) !== `${m[1]}-${m[2]}-${m[3]}`) t = Number.NaN;
  }
  if (!Number.isFinite(t)) fail('USAGE', `${flag} ${JSON.stringify(value)} is neither a date (2026-11-01, 2026-11-01T09:30:00Z; a time without a zone is UTC) nor an age (7d, 12h)`, { flag, value });
  return t;
}
