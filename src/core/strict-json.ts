// A strict JSON parser (RFC 8259) for requests that must not be guessed at: it refuses
// duplicate object keys (JSON.parse silently keeps the last one), comments, trailing
// commas, control characters in strings and anything after the value. Pure: no I/O.
// Keys are compared after unescaping, so {"a":1,"\u0061":2} is a duplicate too.

export type StrictJsonError = { kind: 'INVALID_JSON'; message: string; offset: number } | { kind: 'DUPLICATE_FIELD'; key: string; offset: number };

export class StrictJsonFailure extends Error {
  readonly failure: StrictJsonError;
  constructor(failure: StrictJsonError) {
    super(failure.kind === 'DUPLICATE_FIELD' ? `duplicate key ${JSON.stringify(failure.key)} at offset ${failure.offset}` : `${failure.message} at offset ${failure.offset}`);
    this.failure = failure;
  }
}

const MAX_DEPTH = 64;

/** Parses text strictly; throws StrictJsonFailure. Objects come back as plain objects (own data properties only). */
export function parseStrictJson(text: string): unknown {
  let i = 0;
  const n = text.length;

  const bad = (message: string, at = i): never => {
    throw new StrictJsonFailure({ kind: 'INVALID_JSON', message, offset: at });
  };
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };

  const parseString = (): string => {
    // text[i] is the opening quote
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= n) bad('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) bad('control character in string');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      const e = text[i + 1];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) bad('invalid \\u escape');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          bad('invalid escape');
      }
      i += 2;
      start = i;
    }
  };

  const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const parseNumber = (): number => {
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(text);
    if (!m) bad('invalid number');
    i += m![0].length;
    const v = Number(m![0]);
    if (!Number.isFinite(v)) bad('number out of range');
    return v;
  };

  const literal = (word: string, value: unknown): unknown => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return bad('unexpected token');
  };

  const parseValue = (depth: number): unknown => {
    if (depth > MAX_DEPTH) bad('nested too deeply');
    ws();
    if (i >= n) bad('unexpected end of input');
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: [string, unknown][] = [];
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return Object.fromEntries(entries);
      }
      for (;;) {
        ws();
        if (text[i] !== '"') bad('expected a string key');
        const keyAt = i;
        const key = parseString();
        if (seen.has(key)) throw new StrictJsonFailure({ kind: 'DUPLICATE_FIELD', key, offset: keyAt });
        seen.add(key);
        ws();
        if (text[i] !== ':') bad('expected ":"');
        i++;
        entries.push([key, parseValue(depth + 1)]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          // Object.fromEntries defines own data properties, so "__proto__" is an ordinary key.
          return Object.fromEntries(entries);
        }
        bad('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        bad('expected "," or "]"');
      }
    }
    if (c === '"') return parseString();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    if (c === '-' || (c >= '0' && c <= '9')) return parseNumber();
    return bad('unexpected token');
  };

  const value = parseValue(0);
  ws();
  if (i !== n) bad('unexpected data after the JSON value');
  return value;
}
