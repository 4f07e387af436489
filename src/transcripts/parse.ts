// Parsing an agent's transcript bytes with its reader: complete lines only, every bad line
// skipped with a counted reason, never a partial item. Pure (bytes in, items and counts out);
// capture.ts reads the files and keeps the cursor. Safe on the hook path.
import type { RawItem } from '../core/transcript.ts';
import { type DocumentReader, type JsonlReader, type ParseState, type PayloadReader, SkipLine, UnknownFormat } from './types.ts';

/** A line longer than this is skipped whole (its reason counted), never parsed. */
export const MAX_TRANSCRIPT_LINE = 8 * 1024 * 1024;
/** JSON nested deeper than this is refused before parsing into it (a hostile file). */
export const MAX_JSON_DEPTH = 256;

export interface Skip {
  /** 1-based line number in the file (0 for a whole document). */
  line: number;
  reason: string;
}

export interface ParsedChunk {
  items: { raw: RawItem; line: number }[];
  skips: Skip[];
  /** Bytes consumed: up to and including the last complete line's newline. */
  consumed: number;
  /** Lines consumed. */
  lines: number;
  /** Set when the file is in a format version the reader does not know: stop reading it. */
  unknownVersion?: string;
}

/** Deeper than `max` levels of `[`/`{` outside strings: checked before JSON.parse, which recurses. */
export function tooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  // A hook process runs this in V8's interpreter, where a loop over every character of a
  // 64 KiB delta costs ~2.5 ms (JSON.parse of it ~0.3 ms). Deeper than max needs more than max
  // opening brackets: most lines have far fewer, counted by indexOf (native) alone.
  let opens = 0;
  for (let i = text.indexOf('{'); i >= 0 && opens <= max; i = text.indexOf('{', i + 1)) opens++;
  for (let i = text.indexOf('['); i >= 0 && opens <= max; i = text.indexOf('[', i + 1)) opens++;
  if (opens <= max) return false;
  // Many brackets (code inside strings, or real nesting): the strings cut out by a regular
  // expression (native), the structure left scanned; the scan of the whole text when the
  // expression gives up (a pathological string).
  let structure: string;
  try {
    structure = text.replace(JSON_STRING, '""');
  } catch {
    return depthOver(text, max);
  }
  return depthOver(structure, max);
}

/** A complete JSON string, escapes included (an unrolled loop: backtracking only at escapes). */
const JSON_STRING = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"/g;

function depthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** One line's value, or the reason it is skipped. */
export function parseJsonLine(line: string): { value: unknown } | { reason: string } {
  if (line.trim() === '') return { reason: 'empty line' };
  if (line.length > MAX_TRANSCRIPT_LINE) return { reason: 'line too large' };
  if (line.includes('\uFFFD')) return { reason: 'invalid UTF-8' };
  if (tooDeep(line)) return { reason: 'nested too deep' };
  try {
    return { value: JSON.parse(line) };
  } catch {
    return { reason: 'not JSON' };
  }
}

/**
 * An assistant item the agent wrote without its model takes the model in force where it was
 * read (the reader's state at that line), never the one at the end of the read: the same item
 * is the same whichever way the reads split the file (a model changed mid-session).
 */
function withModel(item: RawItem, state: ParseState): RawItem {
  if (item.role === 'assistant' && !item.model && state.meta.model) item.model = state.meta.model;
  return item;
}

/**
 * The items of the complete lines of `bytes` (a chunk that starts at a line boundary, line
 * number `firstLine`). An unterminated last line is left for later (`consumed` stops before
 * it): the agent may still be writing it. Blank lines are consumed silently.
 */
export function parseJsonlChunk(reader: JsonlReader, bytes: Buffer, firstLine: number, state: ParseState): ParsedChunk {
  const out: ParsedChunk = { items: [], skips: [], consumed: 0, lines: 0 };
  let start = 0;
  let line = firstLine;
  while (start < bytes.length) {
    const nl = bytes.indexOf(10, start);
    if (nl < 0) break;
    const raw = bytes.subarray(start, nl);
    const next = nl + 1;
    if (raw.length > 0 && !(raw.length === 1 && raw[0] === 13)) {
      const text = raw.toString('utf8');
      const parsed = parseJsonLine(text);
      if ('reason' in parsed) out.skips.push({ line, reason: parsed.reason });
      else {
        try {
          for (const item of reader.parseLine(parsed.value, line, state)) out.items.push({ raw: withModel(item, state), line });
        } catch (e) {
          if (e instanceof UnknownFormat) {
            out.unknownVersion = e.version;
            return out;
          }
          out.skips.push({ line, reason: e instanceof SkipLine ? e.reason : `reader error: ${e instanceof Error ? e.message : String(e)}`.slice(0, 200) });
        }
      }
    }
    start = next;
    out.consumed = next;
    out.lines++;
    line++;
  }
  return out;
}

/** The items of a whole document (a file the agent rewrites whole). */
export function parseDocument(reader: DocumentReader, bytes: Buffer, state: ParseState): ParsedChunk {
  const out: ParsedChunk = { items: [], skips: [], consumed: bytes.length, lines: 0 };
  const parsed = parseJsonLine(bytes.toString('utf8'));
  if ('reason' in parsed) {
    out.skips.push({ line: 0, reason: parsed.reason === 'not JSON' ? 'incomplete or not JSON' : parsed.reason });
    return out;
  }
  try {
    for (const item of reader.parseDocument(parsed.value, state)) out.items.push({ raw: withModel(item, state), line: 0 });
  } catch (e) {
    if (e instanceof UnknownFormat) out.unknownVersion = e.version;
    else out.skips.push({ line: 0, reason: e instanceof SkipLine ? e.reason : `reader error: ${e instanceof Error ? e.message : String(e)}`.slice(0, 200) });
  }
  return out;
}

/**
 * The items of the entries a payload reader gets (a plugin's `transcript_items`, or a session's
 * entries out of its database): each entry like a line (`line` is its 1-based index), a bad one
 * (or one nested deeper than MAX_JSON_DEPTH) skipped with its reason, never a partial item.
 */
export function parseEntries(reader: PayloadReader, entries: unknown, state: ParseState): ParsedChunk {
  const out: ParsedChunk = { items: [], skips: [], consumed: 0, lines: 0 };
  if (!Array.isArray(entries)) {
    if (entries !== undefined) out.skips.push({ line: 0, reason: 'transcript items are not an array' });
    return out;
  }
  for (let i = 0; i < entries.length; i++) {
    const line = i + 1;
    out.lines++;
    if (valueTooDeep(entries[i])) {
      out.skips.push({ line, reason: 'nested too deep' });
      continue;
    }
    try {
      for (const item of reader.parseEntry(entries[i], line, state)) out.items.push({ raw: withModel(item, state), line });
    } catch (e) {
      if (e instanceof UnknownFormat) {
        out.unknownVersion = e.version;
        return out;
      }
      out.skips.push({ line, reason: e instanceof SkipLine ? e.reason : `reader error: ${e instanceof Error ? e.message : String(e)}`.slice(0, 200) });
    }
  }
  return out;
}

/** A parsed value nested deeper than `max` arrays/objects (walked without recursion: the value may be hostile). */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  let seen = 0;
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (d >= max) return true;
    // A wide value is walked only so far: its depth, not its size, is what breaks a recursion.
    if (++seen > 1_000_000) return false;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x && typeof x === 'object') stack.push([x, d + 1]);
  }
  return false;
}

export const newParseState = (): ParseState => ({ meta: {}, own: {} });
