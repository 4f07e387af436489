// Secret redaction before every write (store.md, Secrets). A compiled pattern set, not a
// rules engine: it runs on the hook path. Every pattern is linear (no nested quantifiers)
// and long strings are scanned in bounded chunks with an overlap, so a 10 MB payload
// costs a few regex passes, not a backtracking blow-up.

export const REDACTED = '<redacted>';

interface Pattern {
  name: string;
  /**
   * Literals one of which must occur for the pattern to match (lower-case, compared with the
   * lower-cased text, when the pattern ignores case): a substring search lets a scan skip it.
   */
  hint?: string[];
  re: RegExp;
  /** Replace only this capture group (1-based), keeping the rest (e.g. the `password=` key). */
  group?: number;
}

export const DEFAULT_PATTERNS: readonly Pattern[] = [
  { name: 'private-key', hint: ['PRIVATE KEY'], re: /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g },
  { name: 'aws-access-key-id', hint: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AIPA', 'ANPA', 'ANVA', 'AROA', 'APKA'], re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b/g },
  { name: 'aws-secret-access-key', hint: ['aws'], re: /(\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})/gi, group: 2 },
  { name: 'github-token', hint: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { name: 'github-fine-grained', hint: ['github_pat_'], re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { name: 'gitlab-token', hint: ['glpat-'], re: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { name: 'slack-token', hint: ['xox'], re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: 'slack-webhook', hint: ['hooks.slack.com'], re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/_-]{20,}/g },
  { name: 'anthropic-key', hint: ['sk-ant-'], re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', hint: ['sk-'], re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'npm-token', hint: ['npm_'], re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'google-api-key', hint: ['AIza'], re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'jwt', hint: ['eyJ'], re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g },
  { name: 'url-password', hint: ['://'], re: /(:\/\/[^\s:/@]{1,256}:)([^\s@/]{1,256})(@)/g, group: 2 },
  {
    name: 'assignment',
    hint: ['pass', 'pwd', 'secret', 'key', 'token'],
    re: /(\b(?:password|passwd|pwd|secret|client_secret|api_?key|access_?token|auth_?token|token)\b["']?\s*[:=]\s*["']?)([^\s"',;]{4,})/gi,
    group: 2,
  },
];

const CHUNK = 256 * 1024;
const OVERLAP = 24 * 1024;

interface Combined {
  re: RegExp;
  /** Per alternative: its wrapper group index, its inner group count, the group to redact. */
  parts: { at: number; inner: number; group?: number }[];
}

/**
 * All patterns of one case-sensitivity joined into one alternation, so a string is scanned
 * once per flag set instead of once per pattern.
 */
function combine(patterns: readonly Pattern[], ignoreCase: boolean): Combined | null {
  const mine = patterns.filter((p) => p.re.ignoreCase === ignoreCase);
  if (mine.length === 0) return null;
  const parts: Combined['parts'] = [];
  let at = 1;
  const sources: string[] = [];
  for (const p of mine) {
    const inner = (new RegExp(`${p.re.source}|`).exec('') as RegExpExecArray).length - 1;
    parts.push({ at, inner, group: p.group });
    sources.push(`(${p.re.source})`);
    at += inner + 1;
  }
  return { re: new RegExp(sources.join('|'), ignoreCase ? 'gi' : 'g'), parts };
}

const compiled = new WeakMap<readonly Pattern[], (Combined | null)[]>();

function combinedOf(patterns: readonly Pattern[]): (Combined | null)[] {
  let c = compiled.get(patterns);
  if (!c) {
    c = [combine(patterns, false), combine(patterns, true)];
    compiled.set(patterns, c);
  }
  return c;
}

const subsets = new WeakMap<readonly Pattern[], Map<string, readonly Pattern[]>>();

/** The patterns whose hint occurs in the text (the same array object for the same subset). */
function candidates(text: string, patterns: readonly Pattern[]): readonly Pattern[] {
  let key = '';
  let lower: string | undefined;
  for (const p of patterns) {
    const h = p.hint;
    let hit = h === undefined;
    if (h) {
      const hay = p.re.ignoreCase ? (lower ??= text.toLowerCase()) : text;
      hit = h.some((lit) => hay.includes(lit));
    }
    key += hit ? '1' : '0';
  }
  let byKey = subsets.get(patterns);
  if (!byKey) subsets.set(patterns, (byKey = new Map()));
  let sub = byKey.get(key);
  if (!sub) byKey.set(key, (sub = patterns.filter((_, i) => key[i] === '1')));
  return sub;
}

function redactChunk(text: string, all: readonly Pattern[]): string {
  let out = text;
  const patterns = candidates(text, all);
  if (patterns.length === 0) return out;
  for (const c of combinedOf(patterns)) {
    if (!c) continue;
    c.re.lastIndex = 0;
    out = out.replace(c.re, (...m: unknown[]) => {
      const part = c.parts.find((p) => m[p.at] !== undefined);
      if (!part?.group) return REDACTED;
      let s = '';
      for (let i = 1; i <= part.inner; i++) {
        const g = m[part.at + i];
        if (typeof g !== 'string') continue;
        s += i === part.group ? (g === REDACTED ? g : REDACTED) : g;
      }
      return s;
    });
  }
  return out;
}

/** Redacts one string. Long strings go in chunks that overlap, so a secret on a chunk border is still caught. */
export function redactText(text: string, patterns: readonly Pattern[] = DEFAULT_PATTERNS): string {
  if (text.length <= CHUNK) return redactChunk(text, patterns);
  let out = '';
  let start = 0;
  while (start < text.length) {
    const end = Math.min(text.length, start + CHUNK);
    // Extend each chunk to the next line break (bounded), so a match rarely straddles chunks.
    let cut = end;
    if (end < text.length) {
      const nl = text.indexOf('\n', end);
      cut = nl >= 0 && nl - end < OVERLAP ? nl + 1 : end;
    }
    out += redactChunk(text.slice(start, cut), patterns);
    start = cut;
  }
  // A second pass over the chunk borders catches tokens cut in two by a hard border.
  return out.length > CHUNK ? redactBorders(out, patterns) : out;
}

function redactBorders(text: string, patterns: readonly Pattern[]): string {
  let out = text;
  for (let b = CHUNK; b < out.length; b += CHUNK) {
    const lo = Math.max(0, b - OVERLAP);
    const hi = Math.min(out.length, b + OVERLAP);
    const fixed = redactChunk(out.slice(lo, hi), patterns);
    if (fixed.length !== hi - lo || fixed !== out.slice(lo, hi)) out = out.slice(0, lo) + fixed + out.slice(hi);
  }
  return out;
}

/** Returns a copy of a JSON value with every string redacted (keys are kept). */
export function redactValue<T>(value: T, patterns: readonly Pattern[] = DEFAULT_PATTERNS): T {
  if (typeof value === 'string') return redactText(value, patterns) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, patterns)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, patterns);
    return out as T;
  }
  return value;
}

/** Compiles a user pattern (`session redact --pattern RE`) into the same shape. */
export function userPattern(source: string): Pattern {
  return { name: 'user', re: new RegExp(source, 'g') };
}
