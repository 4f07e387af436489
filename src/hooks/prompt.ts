// The prompt archive (aspect `prompt`, hooks.md): each prompt submit appends
// prompt.submitted {episode, text, digest} — secrets redacted, at most 256 KiB, else cut on
// a UTF-8 boundary and marked truncated with original_bytes. Never writes stdout, never blocks.
import { sha256Hex } from '../core/hash.ts';
import { redactText } from '../core/redact.ts';

export const PROMPT_MAX_BYTES = 256 * 1024;
/** The event line must stay under 1 MiB even when JSON escaping inflates the text. */
const MAX_ESCAPED_CHARS = 900 * 1024;

/** Cuts a UTF-8 string to at most maxBytes without splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}

/** The payload of prompt.submitted (without `episode`), pure. */
export function promptPayload(original: string): Record<string, unknown> {
  const redacted = redactText(original);
  const digest = sha256Hex(redacted);
  let text = cutUtf8(redacted, PROMPT_MAX_BYTES);
  let max = PROMPT_MAX_BYTES;
  while (JSON.stringify(text).length > MAX_ESCAPED_CHARS && max > 1024) {
    max = Math.floor(max / 2);
    text = cutUtf8(redacted, max);
  }
  const out: Record<string, unknown> = { text, digest };
  if (text.length !== redacted.length) {
    out.truncated = true;
    out.original_bytes = Buffer.byteLength(original, 'utf8');
  }
  return out;
}

export const TITLE_MAX = 60;

/** A session title from a prompt: its first non-empty line, redacted, at most 60 characters. */
export function titleFromPrompt(prompt: string): string | null {
  const line = prompt
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return null;
  const t = redactText(line);
  return t.length > TITLE_MAX ? `${t.slice(0, TITLE_MAX - 1)}…` : t;
}
