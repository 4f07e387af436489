// Secret redaction before every write (store.md, Secrets). A compiled pattern set, not a
// rules engine: it runs on the hook path. Every pattern is linear (no nested quantifiers)
// and long strings are scanned in bounded chunks with an overlap, so a 10 MB payload
// costs a few regex passes, not a backtracking blow-up.

export const REDACTED = '<redacted>';

interface Pattern {
  name: string;
  re: RegExp;
  /** Replace only this capture group (1-based), keeping the rest (e.g. the `password=` key). */
  group?: number;
}

export const DEFAULT_PATTERNS: readonly Pattern[] = [
  { name: 'private-key', re: /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g },
  { name: 'aws-access-key-id', re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b/g },
  { name: 'aws-secret-access-key', re: /(\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})/gi, group: 2 },
  { name: 'github-token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { name: 'github-fine-grained', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { name: 'gitlab-token', re: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { name: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/_-]{20,}/g },
  { name: 'anthropic-key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'jwt', re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g },
  { name: 'url-password', re: /(\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,256}:)([^\s@/]{1,256})(@)/gi, group: 2 },
  {
    name: 'assignment',
    re: /(\b(?:password|passwd|pwd|secret|client_secret|api_?key|access_?token|auth_?token|token)\b["']?\s*[:=]\s*["']?)([^\s"',;]{4,})/gi,
    group: 2,
  },
];

const CHUNK = 256 * 1024;
const OVERLAP = 24 * 1024;

function redactChunk(text: string, patterns: readonly Pattern[]): string {
  let out = text;
  for (const p of patterns) {
    p.re.lastIndex = 0;
    if (p.group) {
      const g = p.group;
      out = out.replace(p.re, (...m: string[]) => {
        let s = '';
        for (let i = 1; i < m.length && typeof m[i] === 'string'; i++) s += i === g ? (m[i] === REDACTED ? m[i] : REDACTED) : m[i];
        return s;
      });
    } else {
      out = out.replace(p.re, REDACTED);
    }
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
