// Cross-session references (refs.md, seed 001): a bounded snapshot of another session's
// conclusion, carried with its source, the source's version and an expiry.
// Pure: the current time and the source's current version are always passed in, so the
// state of a ref is a function of (ref, now, version) and nothing else. No I/O here;
// storage is src/store/refs.ts. The one escaping routine (core/escape.ts) guards the wrapper.
import { fail } from './errors.ts';
import { escapeAttr, escapeBody } from './escape.ts';
import { sha256Hex } from './hash.ts';
import { isoMillis } from './time.ts';

/** Refusal codes of capture (exit 2). A missing source session is WS001, decided by the store. */
export const REF_EMPTY_SOURCE = 'REF_EMPTY_SOURCE';
export const REF_EXPIRY = 'REF_EXPIRY';
export const REF_INVALID_BOUND = 'REF_INVALID_BOUND';

export type RefState = 'fresh' | 'expired' | 'stale';

/** Capture bounds; 0 = no limit. Both apply: lines first, then bytes. */
export interface Bounds {
  maxBytes: number;
  maxLines: number;
}

export const NO_BOUNDS: Bounds = { maxBytes: 0, maxLines: 0 };

export interface Ref {
  source: string;
  /** The source's last event seq at capture. */
  source_version: number;
  /** RFC 3339 UTC with milliseconds. */
  captured_at: string;
  expires_at: string;
  /** The bounded text. */
  body: string;
  truncated: boolean;
  /** UTF-8 bytes of the body before any cut. */
  original_bytes: number;
  /** First 12 hex of sha256(body): the identity of this snapshot. */
  digest: string;
}

/** First 12 hex digits of sha256 of the UTF-8 body. */
export function digest(body: string): string {
  return sha256Hex(body).slice(0, 12);
}

export function checkBound(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) {
    fail(REF_INVALID_BOUND, `${name} must be a whole number >= 0 (0 = no limit), got ${JSON.stringify(n)}`, { bound: name, value: n });
  }
}

export function checkExpiry(at: Date, expires: Date): void {
  const a = at.getTime();
  const e = expires.getTime();
  if (!Number.isFinite(a) || !Number.isFinite(e)) fail(REF_EXPIRY, 'capture and expiry times must be valid dates');
  if (e <= a) {
    fail(REF_EXPIRY, `expires_at ${isoMillis(expires)} is not later than captured_at ${isoMillis(at)}: a ref born expired is a mistake`, {
      captured_at: isoMillis(at),
      expires_at: isoMillis(expires),
    });
  }
}

/**
 * Cuts a body to its bounds: first to maxLines lines (a line ends at `\n`, which is kept),
 * then to maxBytes UTF-8 bytes, backing off to a character boundary so no character is split.
 */
export function applyBounds(body: string, bounds: Bounds): { body: string; truncated: boolean; original_bytes: number } {
  // Round-trip through UTF-8 so a lone surrogate is the same U+FFFD in body, size and digest.
  let buf = Buffer.from(body, 'utf8');
  const original = buf.length;
  let text = buf.toString('utf8');
  let truncated = false;
  if (bounds.maxLines > 0) {
    let idx = -1;
    for (let i = 0; i < bounds.maxLines; i++) {
      idx = text.indexOf('\n', idx + 1);
      if (idx < 0) break;
    }
    if (idx >= 0 && idx + 1 < text.length) {
      text = text.slice(0, idx + 1);
      truncated = true;
      buf = Buffer.from(text, 'utf8');
    }
  }
  if (bounds.maxBytes > 0 && buf.length > bounds.maxBytes) {
    let end = bounds.maxBytes;
    while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
    text = buf.toString('utf8', 0, end);
    truncated = true;
  }
  return { body: text, truncated, original_bytes: original };
}

/**
 * Captures a snapshot. Refused, never degraded: an empty source (REF_EMPTY_SOURCE), an expiry
 * not later than the capture (REF_EXPIRY), a negative or fractional bound (REF_INVALID_BOUND).
 */
export function capture(source: string, version: number, at: Date, expires: Date, body: string, bounds: Bounds = NO_BOUNDS): Ref {
  if (typeof source !== 'string' || source.trim() === '') fail(REF_EMPTY_SOURCE, 'a ref needs a source session: it cannot be traced or judged stale without one');
  if (!Number.isSafeInteger(version) || version < 0) fail(REF_INVALID_BOUND, `source version must be a whole number >= 0, got ${JSON.stringify(version)}`);
  checkBound('max_bytes', bounds.maxBytes);
  checkBound('max_lines', bounds.maxLines);
  checkExpiry(at, expires);
  const cut = applyBounds(body, bounds);
  return {
    source,
    source_version: version,
    captured_at: isoMillis(at),
    expires_at: isoMillis(expires),
    body: cut.body,
    truncated: cut.truncated,
    original_bytes: cut.original_bytes,
    digest: digest(cut.body),
  };
}

/** expired (now at or after expires_at) first, then stale (version differs either way), then fresh. */
export function state(ref: Pick<Ref, 'expires_at' | 'source_version'>, now: Date, currentVersion: number): RefState {
  const exp = Date.parse(ref.expires_at);
  // An unreadable expiry cannot vouch for anything: treat it as passed.
  if (!Number.isFinite(exp) || now.getTime() >= exp) return 'expired';
  if (currentVersion !== ref.source_version) return 'stale';
  return 'fresh';
}

/** RFC 3339 for the header line, without `.000` when the time falls on a second. */
function headerTime(iso: string): string {
  return iso.replace(/\.000Z$/, 'Z');
}

function openTag(ref: Ref, st: RefState, currentVersion: number): string {
  return (
    `<session-ref source="${escapeAttr(ref.source)}" state="${st}" version="${ref.source_version}" ` +
    `current="${currentVersion}" digest="${escapeAttr(ref.digest)}">`
  );
}

/**
 * The wrapper of refs.md. Rendered whatever the state, with the state in the tag. The body
 * is escaped by the one routine (`&` then `<`), so it can neither close this wrapper nor
 * forge one. The header line is informative; decisions read the tag's attributes.
 */
export function render(ref: Ref, now: Date, currentVersion: number): string {
  const st = state(ref, now, currentVersion);
  let header = `captured ${headerTime(ref.captured_at)} · expires ${headerTime(ref.expires_at)}`;
  if (ref.truncated) header += ` · truncated ${Buffer.byteLength(ref.body, 'utf8')} of ${ref.original_bytes} bytes`;
  const body = escapeBody(ref.body);
  const sep = body === '' || body.endsWith('\n') ? '' : '\n';
  return `${openTag(ref, st, currentVersion)}\n${escapeBody(header)}\n${body}${sep}</session-ref>`;
}

/** The one-line stand-in for a ref left out of a context for lack of room. */
export function renderOmitted(ref: Ref, now: Date, currentVersion: number): string {
  const st = state(ref, now, currentVersion);
  return `<session-ref source="${escapeAttr(ref.source)}" digest="${escapeAttr(ref.digest)}" state="${st}" omitted="size"/>`;
}
