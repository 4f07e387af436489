// Time formats of the file formats. The clock is passed in (roadmap: injected time).
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** RFC 3339 UTC with milliseconds: the event log's `ts`. */
export function isoMillis(d: Date): string {
  return d.toISOString();
}

/** yyyy-MM-ddTHH:mm:ssZ: the pointer's `updated_at` and the journal's `recorded_at`. */
export function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

export const ISO_SECONDS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
