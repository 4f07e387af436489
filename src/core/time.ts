// Time formats of the file formats. The clock is passed in (roadmap: injected time).
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** The last instant of year 9999 + 1 ms: toISOString's four-digit years end there. */
const YEAR_10000 = 253402300800000;

/**
 * RFC 3339 UTC with milliseconds: the event log's `ts`. The same string as d.toISOString(),
 * computed here for the years 1970–9999: V8's toISOString sets up its time-zone cache first
 * (it reads /etc/localtime and resolves its links: a dozen system calls and ~0.2 M
 * instructions on every hook process, docs/adr/0018). Other dates, and invalid ones (its
 * RangeError), go to toISOString.
 */
export function isoMillis(d: Date): string {
  const t = d.getTime();
  if (!(t >= 0 && t < YEAR_10000)) return d.toISOString();
  const days = Math.floor(t / 86_400_000);
  let ms = t - days * 86_400_000;
  // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hh = Math.floor(ms / 3_600_000);
  ms -= hh * 3_600_000;
  const mm = Math.floor(ms / 60_000);
  ms -= mm * 60_000;
  const ss = Math.floor(ms / 1000);
  ms -= ss * 1000;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}.${pad(ms, 3)}Z`;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** yyyy-MM-ddTHH:mm:ssZ: the pointer's `updated_at` and the journal's `recorded_at`. */
export function isoSeconds(d: Date): string {
  return `${isoMillis(d).slice(0, 19)}Z`;
}

export const ISO_SECONDS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

type Dated = { ts: string; payload?: Record<string, unknown> | null };

/** An event's payload `at` when it has the IsoMillis shape (by its fixed characters: the hook folds events too, no regular expression). */
function atOf(ev: Dated): string | undefined {
  const at = ev.payload?.at;
  return typeof at === 'string' && at.length === 24 && at[10] === 'T' && at[19] === '.' && at[23] === 'Z' ? at : undefined;
}

/**
 * When an event happened (docs/adr/0089): an event recorded after the fact says so in its
 * payload's `at` (a transcript item, and the session, episodes and items a history import
 * writes); it counts at that time, never after its own `ts` (when baton wrote it). Any other
 * event happened at its `ts`.
 */
export function happenedAt(ev: Dated): string {
  const at = atOf(ev);
  return at !== undefined && at < ev.ts ? at : ev.ts;
}

/**
 * A session's last activity after one more event (`last_touched_at` in the manifest, the index
 * and the session view; docs/store.md): an event with an `at` counts when it happened
 * (happenedAt) and never moves the activity back; any other event sets it to its `ts`. `prev`
 * is '' before the first event.
 */
export function touchedAfter(prev: string, ev: Dated): string {
  if (atOf(ev) === undefined) return ev.ts;
  const t = happenedAt(ev);
  return prev > t ? prev : t;
}

/** An agent's time as IsoMillis (any form Date.parse reads), or undefined when it gives none. */
export function isoMillisOf(s: string | null | undefined): string | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isFinite(t) ? isoMillis(new Date(t)) : undefined;
}
