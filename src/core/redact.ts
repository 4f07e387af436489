// Secret redaction before every write (store.md, Secrets; docs/redaction.md). One table of
// rules (RULES below), each compiled once, lazily, into its own regular expression: V8 finds
// a rule's leading literal with a fast string search, which one big alternation would lose.
// No dependency, nothing loaded at start-up: the hook path pays only for the rules it runs.
//
// Linearity (issue 11: a 10 MB prompt of repeated PEM headers took 11 s). Each rule keeps
// the work of one match attempt bounded and never re-reads what an earlier attempt read:
// - a rule starts with a literal anchor, and a lookbehind (or a start check) refuses to
//   start inside a run of the token's own characters, so `ghp_ghp_ghp_…` is tried once;
// - every quantifier is bounded, none is nested, and the pieces of a rule are separated by
//   characters outside the neighbouring classes (no two ways to split the same text);
// - a PEM block is found by its header, then the next `-----END` by indexOf, whose answer
//   is kept for the rest of the scan (amortised O(n)), within PEM_MAX_CHARS.
// The secret parts all rules find are merged (overlapping or touching spans become one
// `<redacted>`), so no rule can leave part of what another rule found in the clear.
// bench `redact.worst` measures adversarial MB/s against ordinary text (target ≥ 0.5).

export const REDACTED = '<redacted>';

/** Rule ids of the reference scanners each rule learned from. */
type Ref = `gitleaks:${string}` | `secretlint:${string}`;

export interface Rule {
  /** Stable id: the kind of secret. */
  id: string;
  /**
   * Regex source, starting with the rule's literal anchor. The secret is a suffix of the
   * match: the groups `s`, `s2`, `s3` (the only capturing groups; those that took part are
   * adjacent and end where the match ends; one inside a lookbehind may reach back before
   * the anchor). Without them the whole match is the secret.
   */
  src: string;
  /**
   * A literal every match contains (lower case for `i` rules): a text without it skips the
   * rule, which is then never even compiled (most prompts pay for a handful of rules).
   */
  lead: string;
  /**
   * `i`: the rule ignores case (keywords such as `password`, `Authorization`). Its source is
   * written in lower case and runs on a lower-cased copy of the text (same length, so the
   * positions hold): a case-insensitive regex costs V8 milliseconds to compile, a hook
   * cannot afford that.
   */
  flags?: 'i';
  /**
   * The lead is a name followed by `=` or `:` (generic assignments): a short text whose lead
   * never comes before a separator skips the rule without compiling it.
   */
  assign?: true;
  /** Where the match may start (the character before it): for rules whose anchor is a word. */
  start?: (text: string, at: number) => boolean;
  /**
   * A character that, just before the lead, rules a match out there (a token's own class: a
   * `cf` inside a hex digest is no Cloudflare token). A short text whose every lead has one
   * before it skips the rule without compiling it.
   */
  notAfter?: (c: number) => boolean;
  /**
   * The secret follows the match somewhere nearby: returns its span (start, end) in the text
   * after the match's end, or null. For secrets announced in prose ("the secret key is …").
   */
  after?: (text: string, from: number, ahead: Ahead) => [number, number] | null;
  /** A check of a candidate's (first) secret part: runs on matches only. */
  check?: (secret: string) => boolean;
  /** The reference rules (gitleaks config/gitleaks.toml, secretlint preset-recommend). */
  refs: readonly Ref[];
}

/**
 * `s` as a literal inside a regular expression. A loop, not `s.replace(/[.*+?^${}()|[\]\\/-]/g, ...)`:
 * the table below calls this for ~80 rules at load, which made V8 compile that expression to
 * machine code on every hook process (docs/adr/0018).
 */
const SPECIAL = new Set([...'.*+?^$', ...'{}()|[]\\/-']);
function escapeLiteral(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    out += SPECIAL.has(c) ? `\\${c}` : c;
  }
  return out;
}

/**
 * A token: the literal `lead` (V8 finds it with a fast string search), not preceded by a
 * character of `run` nor by one of `pre` (a class before the lead, e.g. `[sr]` of
 * `sk_live_`), then `rest` and the body. The lookbehind comes after the lead so the
 * search still leads; its group makes the part before the lead part of the secret.
 */
function tok(lead: string, rest: string, run: string, body: string, pre = ''): Pick<Rule, 'src' | 'lead' | 'notAfter'> {
  const lit = escapeLiteral(lead);
  const src = `${lit}(?<=(?<![${run}])(?<s>${pre}${lit}))(?<s2>${rest}${body})`;
  return pre === '' ? { src, lead, notAfter: RUNS[run] } : { src, lead };
}

const AN = 'A-Za-z0-9';
const TK = 'A-Za-z0-9_-';
const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** The classes tok's `run` may be, as tests of a character code. */
const RUNS: Record<string, (c: number) => boolean> = {
  [AN]: isAlnum,
  [TK]: (c) => isAlnum(c) || c === 95 || c === 45,
  [`${AN}_.-`]: (c) => isAlnum(c) || c === 95 || c === 46 || c === 45,
  [`${AN}+/`]: (c) => isAlnum(c) || c === 43 || c === 47,
};

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isUpper = (c: number): boolean => c >= 65 && c <= 90;
/** A word starts here: no letter before it. */
const wordStart = (text: string, at: number): boolean => at === 0 || !isLetter(text.charCodeAt(at - 1));
/** A keyword ends a name: after `_`, `-`, `.`, a digit or a non-letter, or a camelCase capital (`apiKey`). */
function nameSegment(text: string, at: number): boolean {
  if (wordStart(text, at)) return true;
  const prev = text.charCodeAt(at - 1);
  return !isUpper(prev) && isUpper(text.charCodeAt(at));
}
/** A command-line flag: at the start or after white space. */
const flagStart = (text: string, at: number): boolean => at === 0 || /\s/.test(text[at - 1]);
/** A compound name ending in the keyword (`api_key`, `accessToken`, `client_secret`), or the keyword alone. */
const COMPOUND = /(?:api|access|secret|private|auth|refresh|client|app)_?$/i;
function keyName(text: string, at: number): boolean {
  if (nameSegment(text, at)) return true;
  const m = COMPOUND.exec(text.slice(Math.max(0, at - 8), at));
  return m !== null && nameSegment(text, at - m[0].length);
}

/** Code, not a value: a call, or a member path such as `event.key`, `config.apiKey`. */
const CODE = /[()]|^[A-Za-z_$]+(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$/;
/**
 * A generic value looks like a secret, not a word or code: a digit or a symbol, or an
 * inner capital mixed with lower case.
 */
function secretish(s: string): boolean {
  if (CODE.test(s)) return false;
  if (/[0-9_+/=.~!@#%^&*-]/.test(s)) return true;
  return /[a-z]/.test(s) && /[A-Z]/.test(s.slice(1));
}
/** A 40-character cloud secret key: upper, lower and digits mixed (a git sha is lower-case hex). */
const mixed40 = (s: string): boolean => /[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s);
/** How far after "secret" / "aws" a key in prose is looked for, on the same line. */
const PROSE_REACH = 80;
const isKeyChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47;

/**
 * What one scan has learnt ahead of its position, so that no character is read twice: the
 * candidate key runs (standalone runs of exactly 40 base64 characters, mixed case and digits)
 * are known for every start in [from, to) — `run` is the first of them, or -1 for none — and
 * the next line end. Queries only move forward, and a query reads no further than the reach
 * it asks about: a word "secret" near the start of a long text costs its neighbourhood, not
 * a pass over the rest of the text (docs/redaction.md).
 */
export interface Ahead {
  from: number;
  to: number;
  /** The first candidate run [run, runEnd) starting in [from, to), or run = -1: none there. */
  run: number;
  runEnd: number;
  nlFrom: number;
  nl: number;
}

export const newAhead = (): Ahead => ({ from: -1, to: -1, run: -1, runEnd: -1, nlFrom: -1, nl: -1 });

/** The first candidate key run starting in [q, limit], or -1; what it reads is remembered in `a`. */
function keyRunFrom(text: string, q: number, limit: number, a: Ahead): number {
  if (a.from >= 0 && a.from <= q) {
    if (a.run >= q) return a.run <= limit ? a.run : -1;
    if (a.run === -1 && limit < a.to) return -1;
  }
  const n = text.length;
  // Resume where the last read stopped (at a run's end or a boundary): nothing starts before it.
  let i = a.from >= 0 && a.from <= q ? Math.max(q, a.run === -1 ? a.to : a.runEnd) : q;
  // A run that began before i began before q: not one that starts in [q, limit].
  if (i > 0 && isKeyChar(text.charCodeAt(i - 1))) while (i < n && isKeyChar(text.charCodeAt(i))) i++;
  a.from = q;
  a.run = -1;
  let start = -1;
  for (; i <= n; i++) {
    if (start < 0 && i > limit) break;
    const c = i < n ? text.charCodeAt(i) : 10;
    if (i < n && isKeyChar(c)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      const before = start > 0 ? text.charCodeAt(start - 1) : 32;
      if (i - start === 40 && c !== 61 && before !== 61 && !isKeyChar(before) && mixed40(text.slice(start, i))) {
        a.run = start;
        a.runEnd = i;
        a.to = i;
        return start;
      }
      start = -1;
    }
  }
  a.to = i;
  return -1;
}

/** A key announced in prose: the candidate run starting within PROSE_REACH after `from`, on the same line. */
export function keyInProse(text: string, from: number, a: Ahead): [number, number] | null {
  const run = keyRunFrom(text, from, from + PROSE_REACH, a);
  if (run < 0) return null;
  if (!(a.nlFrom >= 0 && a.nlFrom <= from && (a.nl === -1 || from <= a.nl))) {
    a.nlFrom = from;
    a.nl = text.indexOf('\n', from);
  }
  return a.nl >= 0 && a.nl < run ? null : [run, a.runEnd];
}

/** `Basic` credentials decode to printable `user:password`. */
function basicPair(s: string): boolean {
  const d = Buffer.from(s, 'base64').toString('latin1');
  return /^[\x20-\x7e]+$/.test(d) && /^[^:]+:./.test(d);
}

/** A Discord bot token's first part is the bot's id (a snowflake: 17-20 digits) in base64url. */
function discordId(token: string): boolean {
  const id = Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('latin1');
  return /^[1-9][0-9]{16,19}$/.test(id);
}

// Generic assignments: NAME_KEY=…, apiKey: …, "password": "…", KEY=…. The keyword must end
// the name (see nameSegment), then a separator, then a value that is not code.
const SEP = `["'\`]?[ \\t]{0,4}(?:=>|:=|=|:)[ \\t]{0,4}`;
/** Not a value: a placeholder, a type name, an already redacted value, a PEM header (its own rule). */
const NOT_A_VALUE = '(?!["\']?(?:[$<{(%\\[]|-----|process\\.env|os\\.environ|(?:string|number|boolean|bool|null|undefined|true|false|none|str|bytes|int|any|object|unknown)\\b))';
/** A value of at least `min` characters: quoted (up to its closing quote) or bare (up to a space or separator). */
function value(min: number): string {
  return `${NOT_A_VALUE}(?:"(?<s>[^"\\n]{${min},300})(?=")|'(?<s2>[^'\\n]{${min},300})(?=')|(?<s3>[^\\s"'\`,;]{${min},300}))`;
}

/**
 * The default rules: the one table the issue asks for. Each row: id, pattern, and the rules
 * of gitleaks (config/gitleaks.toml) and secretlint's preset-recommend it learned from; the
 * patterns are this project's own bounded, anchored spellings. Every match (or its secret
 * part) is replaced by `<redacted>` (store.md). Gitleaks' keyword-scoped rules
 * (`<vendor>… = <value>`) are covered by generic-secret / generic-password: their names end
 * in key, token, secret or password. Not covered (not text): pkcs12-file, and
 * kubernetes-secret-yaml's multi-line `data:` maps. docs/redaction.md lists them.
 */
export const RULES: readonly Rule[] = [
  // --- private keys (the block is found by the scanner: see pemEnd) ----------------------
  { id: 'private-key', lead: '-----BEGIN', src: '-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----', refs: ['gitleaks:private-key', 'secretlint:privatekey', 'secretlint:gcp'] },
  { id: 'age-secret-key', lead: 'AGE-SECRET-KEY-1', src: 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', refs: ['gitleaks:age-secret-key'] },
  // --- cloud ---------------------------------------------------------------------------
  { id: 'aws-access-key-id', ...tok('A', '(?:3T[A-Z0-9]|KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA|PKA)', AN, '[A-Z0-9]{16}(?![A-Za-z0-9])'), refs: ['gitleaks:aws-access-token', 'secretlint:aws'] },
  // A 40-character secret key in prose ("the AWS secret key is …"), up to 80 characters after the word.
  { id: 'aws-secret-key-prose', lead: 'secret', src: 'secret', flags: 'i', after: keyInProse, refs: ['secretlint:aws', 'gitleaks:generic-api-key'] },
  { id: 'aws-bedrock-key', ...tok('ABSK', '', AN, '[A-Za-z0-9+/]{109,269}={0,2}'), refs: ['gitleaks:aws-amazon-bedrock-api-key-long-lived'] },
  { id: 'gcp-api-key', ...tok('AIza', '', TK, '[A-Za-z0-9_-]{35}'), refs: ['gitleaks:gcp-api-key'] },
  { id: 'azure-storage-key', lead: 'key=', src: 'key=(?<=(?:account|sharedaccess)key=)(?<s>[A-Za-z0-9+/]{20,100}={0,2})', flags: 'i', refs: ['gitleaks:generic-api-key'] },
  { id: 'azure-sas-signature', lead: 'sig=', src: 'sig=(?<=[?&;]sig=)(?<s>[A-Za-z0-9%+/=]{16,200})', refs: ['gitleaks:generic-api-key'] },
  { id: 'azure-ad-client-secret', lead: 'Q~', src: 'Q~(?<=(?<![A-Za-z0-9_~.])(?<s>[A-Za-z0-9_~.]{3}[0-9]Q~))(?<s2>[A-Za-z0-9_~.-]{31,34})', refs: ['gitleaks:azure-ad-client-secret'] },
  { id: 'aws-bedrock-short-lived-key', ...tok('bedrock-api-key-', '', TK, '[A-Za-z0-9+/=_-]{20,2000}'), refs: ['gitleaks:aws-amazon-bedrock-api-key-short-lived'] },
  { id: 'clickhouse-secret-key', ...tok('4b1d', '', AN, '[A-Za-z0-9]{38}(?![A-Za-z0-9])'), refs: ['gitleaks:clickhouse-cloud-api-secret-key'] },
  { id: 'adobe-client-secret', ...tok('p8e-', '', TK, '[A-Za-z0-9]{32}'), refs: ['gitleaks:adobe-client-secret'] },
  {
    id: 'authress-key',
    lead: '.acc',
    src: '\\.acc[_-](?<=(?<![A-Za-z0-9_])(?<s>(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-]))(?<s2>[A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120})',
    refs: ['gitleaks:authress-service-client-access-key'],
  },
  { id: 'alibaba-access-key-id', ...tok('LTAI', '', AN, '[A-Za-z0-9]{20}'), refs: ['gitleaks:alibaba-access-key-id'] },
  { id: 'digitalocean-token', ...tok('_v1_', '', TK, '[a-f0-9]{64}', 'do[opr]'), refs: ['gitleaks:digitalocean-access-token', 'gitleaks:digitalocean-pat', 'gitleaks:digitalocean-refresh-token'] },
  { id: 'cloudflare-token', ...tok('cf', '(?:k|ut|at)_', TK, '[A-Za-z0-9]{40}[0-9a-f]{8}'), refs: ['secretlint:cloudflare'] },
  { id: 'cloudflare-origin-ca-key', ...tok('v1.0-', '', TK, '[a-f0-9]{24}-[a-f0-9]{146}'), refs: ['gitleaks:cloudflare-origin-ca-key'] },
  { id: 'heroku-api-key', ...tok('HRKU-AA', '', TK, '[0-9A-Za-z_-]{58}'), refs: ['gitleaks:heroku-api-key-v2'] },
  { id: 'aws-key-prose', lead: 'aws', src: 'aws', flags: 'i', after: keyInProse, refs: ['secretlint:aws'] },
  { id: 'flyio-token', ...tok('fo1_', '', TK, '[A-Za-z0-9_-]{43}'), refs: ['gitleaks:flyio-access-token'] },
  { id: 'flyio-macaroon', ...tok('fm', '(?:1[ar]|2)_', TK, '[A-Za-z0-9+/]{100,400}={0,3}'), refs: ['gitleaks:flyio-access-token'] },
  { id: 'vercel-token', ...tok('vc', '[pikar]_', TK, '[A-Za-z0-9]{20,60}'), refs: ['secretlint:vercel'] },
  { id: 'tailscale-key', ...tok('tskey-', '', TK, '[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}'), refs: ['secretlint:tailscale'] },
  { id: 'hashicorp-vault-token', ...tok('hv', '[sbr]\\.', TK, '[A-Za-z0-9_-]{90,300}'), refs: ['gitleaks:vault-service-token', 'gitleaks:vault-batch-token', 'secretlint:hashicorp-vault'] },
  { id: 'terraform-cloud-token', lead: '.atlasv1.', src: '\\.atlasv1\\.(?<=(?<![A-Za-z0-9])(?<s>[A-Za-z0-9]{14}\\.atlasv1\\.))(?<s2>[A-Za-z0-9_=-]{60,70})', refs: ['gitleaks:hashicorp-tf-api-token'] },
  { id: 'doppler-token', ...tok('dp.', '(?:pt|st|sa|ct|scim|audit)\\.', TK, '[A-Za-z0-9]{40,44}'), refs: ['gitleaks:doppler-api-token'] },
  { id: 'pulumi-token', ...tok('pul-', '', TK, '[a-f0-9]{40}'), refs: ['gitleaks:pulumi-api-token'] },
  { id: 'databricks-token', ...tok('dapi', '', AN, '[a-f0-9]{32}(?:-[0-9])?'), refs: ['gitleaks:databricks-api-token', 'secretlint:databricks'] },
  { id: 'planetscale-token', ...tok('pscale_', '(?:tkn|oauth|pw)_', TK, '[A-Za-z0-9_=.-]{32,64}'), refs: ['gitleaks:planetscale-api-token', 'gitleaks:planetscale-oauth-token', 'gitleaks:planetscale-password'] },
  { id: 'openshift-token', ...tok('sha256~', '', TK, '[A-Za-z0-9_-]{43}'), refs: ['gitleaks:openshift-user-token'] },
  { id: 'dynatrace-token', ...tok('dt0c01.', '', TK, '[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}'), refs: ['gitleaks:dynatrace-api-token'] },
  { id: 'yandex-key', ...tok('AQVN', '', TK, '[A-Za-z0-9_-]{35,38}'), refs: ['gitleaks:yandex-api-key'] },
  // --- payment -------------------------------------------------------------------------
  { id: 'stripe-key', ...tok('k_', '(?:live|test|prod)_', TK, '[A-Za-z0-9]{10,247}', '[sr]'), refs: ['gitleaks:stripe-access-token', 'secretlint:stripe'] },
  { id: 'stripe-webhook-secret', ...tok('whsec_', '', TK, '[A-Za-z0-9]{24,128}'), refs: ['secretlint:stripe'] },
  { id: 'square-token', ...tok('sq0', '(?:atp|csp)-', TK, '[A-Za-z0-9_-]{22,60}'), refs: ['gitleaks:square-access-token'] },
  { id: 'square-access-token', ...tok('EAAA', '', TK, '[A-Za-z0-9_-]{22,60}'), refs: ['gitleaks:square-access-token'] },
  { id: 'shopify-token', ...tok('shp', '(?:at|ca|pa|ss)_', TK, '[a-fA-F0-9]{32,64}'), refs: ['gitleaks:shopify-access-token', 'gitleaks:shopify-custom-access-token', 'gitleaks:shopify-private-app-access-token', 'gitleaks:shopify-shared-secret', 'secretlint:shopify'] },
  { id: 'flutterwave-key', ...tok('FLW', '(?:SECK_TEST-|SECK-|PUBK_TEST-)', TK, '[a-hA-H0-9]{12,32}(?:-X)?'), refs: ['gitleaks:flutterwave-secret-key', 'gitleaks:flutterwave-encryption-key', 'gitleaks:flutterwave-public-key'] },
  { id: 'duffel-token', ...tok('duffel_', '(?:test|live)_', TK, '[A-Za-z0-9_=-]{43}'), refs: ['gitleaks:duffel-api-token'] },
  { id: 'easypost-token', ...tok('EZ', '[AT]K', AN, '[A-Za-z0-9]{54}'), refs: ['gitleaks:easypost-api-token', 'gitleaks:easypost-test-api-token'] },
  { id: 'plaid-token', ...tok('access-', '(?:sandbox|development|production)-', TK, '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'), refs: ['gitleaks:plaid-api-token'] },
  { id: 'shippo-token', ...tok('shippo_', '(?:live|test)_', TK, '[a-fA-F0-9]{40}'), refs: ['gitleaks:shippo-api-token'] },
  // --- source hosts, CI, registries ---------------------------------------------------------
  { id: 'github-token', ...tok('gh', '[pousr]_', TK, '[A-Za-z0-9_]{36,255}'), refs: ['gitleaks:github-pat', 'gitleaks:github-oauth', 'gitleaks:github-app-token', 'gitleaks:github-refresh-token', 'secretlint:github'] },
  { id: 'github-fine-grained-pat', ...tok('github_pat_', '', TK, '[A-Za-z0-9_]{22,255}'), refs: ['gitleaks:github-fine-grained-pat', 'secretlint:github'] },
  { id: 'gitlab-token', ...tok('gl', '(?:pat|dt|ffct|ft|imt|agent|oas|ptt|rt|soat|cbt)-', TK, '[A-Za-z0-9_.-]{20,300}'), refs: ['gitleaks:gitlab-pat', 'gitleaks:gitlab-pat-routable', 'gitleaks:gitlab-deploy-token', 'gitleaks:gitlab-feature-flag-client-token', 'gitleaks:gitlab-feed-token', 'gitleaks:gitlab-incoming-mail-token', 'gitleaks:gitlab-kubernetes-agent-token', 'gitleaks:gitlab-oauth-app-secret', 'gitleaks:gitlab-ptt', 'gitleaks:gitlab-runner-authentication-token', 'gitleaks:gitlab-scim-token', 'gitleaks:gitlab-cicd-job-token', 'gitleaks:gitlab-runner-authentication-token-routable', 'secretlint:gitlab'] },
  { id: 'gitlab-runner-registration', ...tok('GR1348941', '', TK, '[A-Za-z0-9_-]{20}'), refs: ['gitleaks:gitlab-rrt'] },
  { id: 'gitlab-session-cookie', lead: '_gitlab_session=', src: '_gitlab_session=(?<s>[0-9a-z]{32})', refs: ['gitleaks:gitlab-session-cookie'] },
  { id: 'npm-token', ...tok('npm_', '', TK, '[A-Za-z0-9]{36}'), refs: ['gitleaks:npm-access-token', 'secretlint:npm'] },
  { id: 'npmrc-auth', lead: '_auth', src: '_auth(?:token)?[ \\t]{0,4}=[ \\t]{0,4}(?<s>[^\\s$][^\\s]{0,299})', flags: 'i', refs: ['secretlint:npm'] },
  { id: 'pypi-token', ...tok('pypi-AgE', '', TK, '[A-Za-z0-9_-]{50,1000}'), refs: ['gitleaks:pypi-upload-token'] },
  { id: 'rubygems-token', ...tok('rubygems_', '', TK, '[a-f0-9]{48}'), refs: ['gitleaks:rubygems-api-token'] },
  { id: 'clojars-token', ...tok('clojars_', '', TK, '[A-Za-z0-9]{60}'), flags: 'i', refs: ['gitleaks:clojars-api-token'] },
  { id: 'docker-pat', ...tok('dckr_pat_', '', TK, '[A-Za-z0-9_-]{27}'), refs: ['secretlint:docker'] },
  { id: 'artifactory-api-key', ...tok('AKCp', '', AN, '[A-Za-z0-9]{69}'), refs: ['gitleaks:artifactory-api-key'] },
  { id: 'artifactory-reference-token', ...tok('cmVmd', '', AN, '[A-Za-z0-9]{59}'), refs: ['gitleaks:artifactory-reference-token'] },
  { id: 'octopus-deploy-key', ...tok('API-', '', TK, '[A-Z0-9]{26}(?![A-Za-z0-9])'), refs: ['gitleaks:octopus-deploy-api-key'] },
  { id: 'readme-token', ...tok('rdme_', '', TK, '[a-z0-9]{70}'), refs: ['gitleaks:readme-api-token'] },
  { id: 'prefect-token', ...tok('pnu_', '', TK, '[A-Za-z0-9]{36}'), refs: ['gitleaks:prefect-api-token'] },
  { id: 'scalingo-token', ...tok('tk-us-', '', TK, '[A-Za-z0-9_-]{48}'), refs: ['gitleaks:scalingo-api-token'] },
  { id: 'infracost-token', ...tok('ico-', '', TK, '[A-Za-z0-9]{32}'), refs: ['gitleaks:infracost-api-token'] },
  { id: 'harness-token', ...tok('at.', '', TK, '[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}', '[ps]'), refs: ['gitleaks:harness-api-key'] },
  { id: 'settlemint-token', ...tok('sm_', '(?:aat|pat|sat)_', TK, '[A-Za-z0-9]{16}'), refs: ['gitleaks:settlemint-application-access-token', 'gitleaks:settlemint-personal-access-token', 'gitleaks:settlemint-service-access-token'] },
  { id: 'intra42-secret', ...tok('s-s4t2', '(?:ud|af)-', TK, '[a-f0-9]{64}'), refs: ['gitleaks:intra42-client-secret'] },
  { id: 'airtable-token', ...tok('pat', '', AN, '[A-Za-z0-9]{14}\\.[a-f0-9]{64}'), refs: ['gitleaks:airtable-personnal-access-token'] },
  { id: 'sourcegraph-token', ...tok('sgp_', '', TK, '(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}'), refs: ['gitleaks:sourcegraph-access-token'] },
  // --- chat, collaboration ----------------------------------------------------------------
  { id: 'slack-app-token', ...tok('xapp-', '', TK, '[0-9]-[A-Za-z0-9-]{10,250}'), refs: ['gitleaks:slack-app-token', 'secretlint:slack'] },
  { id: 'slack-token', ...tok('xox', '(?:[abposre]-|e\\.xox[bp]-)', TK, '[A-Za-z0-9-]{10,250}'), refs: ['gitleaks:slack-bot-token', 'gitleaks:slack-user-token', 'gitleaks:slack-app-token', 'gitleaks:slack-legacy-token', 'gitleaks:slack-legacy-bot-token', 'gitleaks:slack-legacy-workspace-token', 'gitleaks:slack-config-access-token', 'gitleaks:slack-config-refresh-token', 'secretlint:slack'] },
  { id: 'slack-webhook', lead: 'hooks.slack.com/', src: 'hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<s>[A-Za-z0-9+/_-]{20,120})', refs: ['gitleaks:slack-webhook-url', 'secretlint:slack'] },
  { id: 'teams-webhook', lead: '.webhook.office.com/', src: '\\.webhook\\.office\\.com/webhookb2/(?<s>[A-Za-z0-9@/-]{40,300})', refs: ['gitleaks:microsoft-teams-webhook'] },
  { id: 'telegram-bot-token', lead: ':A', src: ':A(?<=(?<![0-9])(?<s>[0-9]{5,16}:A))(?<s2>[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])', refs: ['gitleaks:telegram-bot-api-token'] },
  // Discord: the references have only keyword-scoped rules (gitleaks discord-api-token,
  // discord-client-id, discord-client-secret need the word "discord" before the value). A bot
  // token is three base64url parts (the user id, a timestamp, an HMAC: Discord's docs,
  // "Authentication"); it has no prefix, so the rule is led by its first dot and looks back
  // for the id part (starting M, N or O) only when the 6-character timestamp and the second
  // dot follow; the id part must decode to the 17-20 digits of a Discord id (discordId), so
  // a dotted code path of the same shape is left alone.
  {
    id: 'discord-bot-token',
    lead: '.',
    src: '\\.(?=[A-Za-z0-9_-]{6}\\.)(?<=(?<![A-Za-z0-9_-])(?<s>[MNO][A-Za-z0-9_-]{22,27}\\.))(?<s2>[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38})(?![A-Za-z0-9_-])',
    check: discordId,
    refs: ['gitleaks:discord-api-token', 'gitleaks:discord-client-secret'],
  },
  // A webhook URL is its own credential (anyone holding it can post): the token after the id goes.
  { id: 'discord-webhook', lead: 'discord', src: 'discord(?:app)?\\.com/api/(?:v[0-9]{1,2}/)?webhooks/[0-9]{17,20}/(?<s>[A-Za-z0-9_-]{60,100})', refs: ['gitleaks:discord-api-token'] },
  { id: 'linear-key', ...tok('lin_api_', '', TK, '[A-Za-z0-9_]{32,128}'), refs: ['gitleaks:linear-api-key', 'secretlint:linear'] },
  { id: 'notion-token', ...tok('ntn_', '', TK, '[0-9]{11}[A-Za-z0-9]{35}'), refs: ['gitleaks:notion-api-token', 'secretlint:notion'] },
  { id: 'figma-token', ...tok('figd_', '', TK, '[A-Za-z0-9_-]{40,200}'), refs: ['secretlint:figma'] },
  { id: 'atlassian-token', ...tok('ATATT3', '', TK, '[A-Za-z0-9_=-]{180,200}'), refs: ['gitleaks:atlassian-api-token'] },
  { id: 'postman-token', ...tok('PMAK-', '', TK, '[a-fA-F0-9]{24}-[a-fA-F0-9]{34}'), refs: ['gitleaks:postman-api-token'] },
  { id: 'typeform-token', ...tok('tfp_', '', TK, '[A-Za-z0-9_.=-]{59}'), refs: ['gitleaks:typeform-api-token'] },
  { id: 'frameio-token', ...tok('fio-u-', '', TK, '[A-Za-z0-9_=-]{64}'), refs: ['gitleaks:frameio-api-token'] },
  { id: 'facebook-access-token', lead: '|', src: '\\|(?<=(?<![0-9])(?<s>[0-9]{15,16}\\|))(?<s2>[A-Za-z0-9_-]{27,40})', refs: ['gitleaks:facebook-access-token'] },
  { id: 'facebook-page-token', ...tok('EAA', '[MC]', AN, '[A-Za-z0-9]{100,400}'), refs: ['gitleaks:facebook-page-access-token'] },
  { id: 'onepassword-token', ...tok('ops_eyJ', '', TK, '[A-Za-z0-9+/]{100,1280}={0,3}'), refs: ['gitleaks:1password-service-account-token', 'secretlint:1password'] },
  { id: 'onepassword-secret-key', ...tok('A3-', '', TK, '[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}'), refs: ['gitleaks:1password-secret-key'] },
  // --- observability -------------------------------------------------------------------
  { id: 'grafana-token', ...tok('gl', '(?:c|sa)_', TK, '[A-Za-z0-9+/_]{32,400}={0,3}'), refs: ['gitleaks:grafana-cloud-api-token', 'gitleaks:grafana-service-account-token', 'secretlint:grafana'] },
  { id: 'grafana-api-key', ...tok('eyJrIjoi', '', TK, '[A-Za-z0-9+/]{70,400}={0,3}'), refs: ['gitleaks:grafana-api-key'] },
  { id: 'sentry-token', ...tok('sntry', '[us]_', TK, '[A-Za-z0-9+/=_]{64,500}'), refs: ['gitleaks:sentry-user-token', 'gitleaks:sentry-org-token'] },
  { id: 'new-relic-key', ...tok('NR', '(?:AK|II|JS)-', TK, '[A-Za-z0-9-]{19,32}'), refs: ['gitleaks:new-relic-user-api-key', 'gitleaks:new-relic-insert-key', 'gitleaks:new-relic-browser-api-token'] },
  // --- AI providers --------------------------------------------------------------------
  { id: 'anthropic-key', ...tok('sk-ant-', '', TK, '[A-Za-z0-9_-]{20,250}'), refs: ['gitleaks:anthropic-api-key', 'gitleaks:anthropic-admin-api-key', 'secretlint:anthropic'] },
  { id: 'openai-key', ...tok('sk-', '(?:proj|svcacct|admin)-', TK, '[A-Za-z0-9_-]{20,250}'), refs: ['gitleaks:openai-api-key', 'secretlint:openai'] },
  { id: 'openai-legacy-key', ...tok('sk-', '', TK, '[A-Za-z0-9]{20,200}(?![A-Za-z0-9_-])'), refs: ['gitleaks:openai-api-key', 'secretlint:openai'] },
  { id: 'huggingface-token', ...tok('hf_', '', TK, '[A-Za-z]{34,40}'), refs: ['gitleaks:huggingface-access-token', 'secretlint:huggingface'] },
  { id: 'huggingface-org-token', ...tok('api_org_', '', TK, '[A-Za-z]{34,40}'), refs: ['gitleaks:huggingface-organization-api-token'] },
  { id: 'groq-key', ...tok('gsk_', '', TK, '[A-Za-z0-9]{52}'), refs: ['secretlint:groq'] },
  { id: 'perplexity-key', ...tok('pplx-', '', TK, '[A-Za-z0-9]{48}'), refs: ['gitleaks:perplexity-api-key'] },
  // --- email and messaging ----------------------------------------------------------------
  { id: 'sendgrid-key', ...tok('SG.', '', TK, '[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}'), refs: ['gitleaks:sendgrid-api-token', 'secretlint:sendgrid'] },
  { id: 'sendinblue-key', ...tok('xkeysib-', '', TK, '[a-f0-9]{64}-[A-Za-z0-9]{16}'), refs: ['gitleaks:sendinblue-api-token'] },
  { id: 'mailgun-key', ...tok('key-', '', TK, '[a-f0-9]{32}(?![A-Za-z0-9])', '(?:pub)?'), refs: ['gitleaks:mailgun-private-api-token', 'gitleaks:mailgun-pub-key'] },
  { id: 'mailchimp-key', lead: '-us', src: '-us[0-9]{1,2}(?<=(?<![A-Za-z0-9])[a-f0-9]{32}-us[0-9]{1,2})(?![A-Za-z0-9])(?<=(?<s>[a-f0-9]{32}-us[0-9]{1,2}))', refs: ['gitleaks:mailchimp-api-key'] },
  { id: 'twilio-key', ...tok('SK', '', AN, '[0-9a-f]{32}(?![A-Za-z0-9])'), refs: ['gitleaks:twilio-api-key'] },
  { id: 'maxmind-key', lead: '_mmk', src: '_mmk(?<=(?<![A-Za-z0-9_])(?<s>[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk))', refs: ['gitleaks:maxmind-license-key'] },
  // --- generic shapes --------------------------------------------------------------------
  { id: 'jwt', ...tok('eyJ', '', `${AN}_.-`, '[A-Za-z0-9_-]{8,2000}\\.eyJ[A-Za-z0-9_-]{8,8000}\\.[A-Za-z0-9_-]{0,2000}'), refs: ['gitleaks:jwt', 'secretlint:github'] },
  { id: 'jwt-base64', ...tok('ZXlK', '', `${AN}+/`, '[A-Za-z0-9+/]{40,8000}={0,2}'), refs: ['gitleaks:jwt-base64'] },
  {
    id: 'authorization-header',
    lead: 'authorization',
    src: 'authorization["\']?[ \\t]{0,4}[:=][ \\t]{0,4}["\']?(?:(?:bearer|basic|token|digest|bot|apikey)[ \\t]{1,4})?(?![<$%{]|(?:bearer|basic|token|digest|bot|apikey)[ \\t])(?<s>[^\\s"\',;]{6,4096})',
    flags: 'i',
    refs: ['gitleaks:curl-auth-header', 'secretlint:basicauth'],
  },
  { id: 'bearer-token', lead: 'bearer', src: 'bearer[ \\t]{1,4}(?<s>[A-Za-z0-9._~+/-]{16,4096}=*)', flags: 'i', start: wordStart, refs: ['gitleaks:curl-auth-header'] },
  { id: 'basic-credentials', lead: 'basic', flags: 'i', src: 'basic[ \\t]{1,4}(?<s>[A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])', start: wordStart, check: basicPair, refs: ['gitleaks:curl-auth-header', 'secretlint:basicauth'] },
  { id: 'curl-user', lead: '-u', src: '(?:-u|--user)[ =]{1,3}["\']?[^\\s:"\']{1,100}:(?<s>[^\\s"\']{3,200})', start: flagStart, refs: ['gitleaks:curl-auth-user'] },
  { id: 'url-password', lead: '://', src: '://[^\\s:/@]{0,256}:(?<s>[^\\s@/]{1,256})(?=@)', refs: ['secretlint:basicauth', 'secretlint:database-connection-string', 'gitleaks:sidekiq-sensitive-url'] },
  { id: 'nuget-password', lead: '<add key=', src: '<add key="(?:cleartext)?password"\\s{0,4}value="(?<s>[^"\\n]{1,300})(?=")', flags: 'i', refs: ['gitleaks:nuget-config-password'] },
  { id: 'generic-password', assign: true, lead: 'pass', src: `pass(?:word|wd|phrase)?${SEP}${value(4)}`, flags: 'i', start: nameSegment, refs: ['gitleaks:generic-api-key', 'gitleaks:hashicorp-tf-password'] },
  { id: 'generic-pwd', assign: true, lead: 'pwd', src: `pwd${SEP}${value(4)}`, flags: 'i', start: nameSegment, refs: ['gitleaks:generic-api-key'] },
  { id: 'generic-key', assign: true, lead: 'key', src: `key${SEP}${value(8)}`, flags: 'i', start: keyName, check: secretish, refs: ['gitleaks:generic-api-key', 'gitleaks:freemius-secret-key', 'secretlint:aws'] },
  { id: 'generic-token', assign: true, lead: 'token', src: `token${SEP}${value(8)}`, flags: 'i', start: keyName, check: secretish, refs: ['gitleaks:generic-api-key'] },
  { id: 'generic-secret', assign: true, lead: 'secret', src: `secret${SEP}${value(8)}`, flags: 'i', start: keyName, check: secretish, refs: ['gitleaks:generic-api-key'] },
  { id: 'generic-credential', assign: true, lead: 'cred', src: `cred(?:entials?|s)${SEP}${value(8)}`, flags: 'i', start: nameSegment, check: secretish, refs: ['gitleaks:generic-api-key'] },
];

/** A PEM block longer than this is not taken whole: its header and base64 body are redacted. */
export const PEM_MAX_CHARS = 64 * 1024;

const PEM_FOOTER = /-----END[ A-Z0-9_-]{0,60}-----/y;
/**
 * A key body without its END: lines of base64 ending in a newline or the `\n` escape of a key
 * pasted from JSON (each line needs its line end, so there is one way to split the text).
 */
const PEM_BODY = /(?:\r?\n|\\n)?(?:[A-Za-z0-9+/=]{1,100}(?:\r?\n|\\n)){0,1000}[A-Za-z0-9+/=]{0,100}/y;

/** The last `-----END` search of one scan: valid for every query between `from` and `at`. */
interface EndCache {
  from: number;
  at: number;
}

/** Where a PEM block whose header ends at `bodyStart` ends. */
function pemEnd(text: string, bodyStart: number, cache: EndCache): number {
  // Queries only move forward, so the indexOf scans never overlap: O(n) for the whole text.
  const valid = cache.from >= 0 && cache.from <= bodyStart && (cache.at === -1 || bodyStart <= cache.at);
  if (!valid) {
    cache.from = bodyStart;
    cache.at = text.indexOf('-----END', bodyStart);
  }
  const end = cache.at;
  if (end >= 0 && end - bodyStart <= PEM_MAX_CHARS) {
    PEM_FOOTER.lastIndex = end;
    return PEM_FOOTER.test(text) ? PEM_FOOTER.lastIndex : end + 8;
  }
  PEM_BODY.lastIndex = bodyStart;
  PEM_BODY.test(text);
  return PEM_BODY.lastIndex;
}

/** Each rule's regex, compiled on first use. */
const compiled: (RegExp | undefined)[] = [];

function regexOf(i: number): RegExp {
  let re = compiled[i];
  if (!re) {
    const r = RULES[i];
    re = new RegExp(r.src.replace(/\(\?<s[23]?>/g, '('), 'g');
    compiled[i] = re;
  }
  return re;
}

// The strategy (never the answer) depends on the text's length and on how warm the process is.
// A process that lives for one event (a hook) runs this file in V8's interpreter, where a loop
// over a text's characters costs ~50 ns each and a native `includes` per rule ~1 µs for a few
// KiB; once V8 has compiled the loops (a server, an import), the pair table wins for long texts.
// Measured on a capture's 64 KiB of items (ADR 0072): ~10 ms in a cold process with the pair
// table from 4 KiB, ~2.5 ms with `includes` up to 64 KiB; warm, `includes` on 5–30 KiB texts
// ran at ~65 % of the pair table's speed, so a process switches after its first COLD_CHARS.
/** Up to this length a text is read once, character by character, for the leads it holds. */
const DISPATCH_UP_TO = 128;
/** Up to this length a text is searched for each rule's lead directly (includes), the pair table past it. */
const PAIRS_FROM_CHARS = 4096;
/** The same while the process is cold (two chunks). */
const PAIRS_FROM_CHARS_COLD = 2 * 32 * 1024;
/** Characters this process redacts before it counts as warm. */
const COLD_CHARS = 256 * 1024;
let charsSeen = 0;

/**
 * Rule indexes by the first two characters of their lead (ASCII; every case for `i` rules), at
 * (first << 7) | second, and by the first alone for one-character leads; built on first use.
 */
let byPair: Map<number, number[]> | null = null;
let bySingle: (number[] | undefined)[] = [];

function leadsByPair(): Map<number, number[]> {
  if (byPair) return byPair;
  // A Map, not a 16,384-slot array: filling that cost the prompt hook (one short text) more than it saved.
  const pairs = new Map<number, number[]>();
  const single: (number[] | undefined)[] = new Array(128).fill(undefined);
  const cases = (c: number, ci: boolean): number[] => (ci && c >= 97 && c <= 122 ? [c, c - 32] : [c]);
  RULES.forEach((r, i) => {
    const ci = r.flags === 'i';
    for (const a of cases(r.lead.charCodeAt(0), ci)) {
      if (r.lead.length === 1) {
        const list = (single[a] ??= []);
        if (!list.includes(i)) list.push(i);
        continue;
      }
      for (const b of cases(r.lead.charCodeAt(1), ci)) {
        const list = pairs.get((a << 7) | b);
        if (!list) pairs.set((a << 7) | b, [i]);
        else if (!list.includes(i)) list.push(i);
      }
    }
  });
  byPair = pairs;
  bySingle = single;
  return pairs;
}

/** Whether `lead` occurs at `at` (ignoring ASCII case when `ci`: the lead is lower case). */
function leadAt(text: string, at: number, lead: string, ci: boolean): boolean {
  if (!ci) return text.startsWith(lead, at);
  if (at + lead.length > text.length) return false;
  for (let k = 0; k < lead.length; k++) {
    const c = text.charCodeAt(at + k);
    if ((c >= 65 && c <= 90 ? c | 32 : c) !== lead.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * The rules whose lead occurs in a short text, in table order: one pass over its characters,
 * a look-up of each pair of characters (most strings of a payload — ids, hashes, short notes —
 * meet no lead, and a pair starts few). Keyed by one character, nearly every letter started a
 * list of several rules, each tried at each position: on a capture's short strings that made
 * this loop hot enough for V8 to optimise it, ~25 M instructions of a hook (docs/adr/0081).
 */
function rulesIn(text: string): number[] {
  const pairs = leadsByPair();
  const single = bySingle;
  let found: Uint8Array | null = null;
  const n = text.length;
  let c = n > 0 ? text.charCodeAt(0) : 128;
  for (let at = 0; at < n; at++) {
    const d = at + 1 < n ? text.charCodeAt(at + 1) : 128;
    if (c < 128) {
      const one = single[c];
      if (one !== undefined) found = leadsAt(text, at, one, found);
      const two = d < 128 ? pairs.get((c << 7) | d) : undefined;
      if (two !== undefined) found = leadsAt(text, at, two, found);
    }
    c = d;
  }
  const out: number[] = [];
  if (found) for (let i = 0; i < found.length; i++) if (found[i]) out.push(i);
  return out;
}

/** Marks in `found` the rules of `list` whose lead occurs at `at` (and is not ruled out by the character before). */
function leadsAt(text: string, at: number, list: number[], found: Uint8Array | null): Uint8Array | null {
  for (let j = 0; j < list.length; j++) {
    const i = list[j];
    if (found?.[i]) continue;
    const r = RULES[i];
    if (!leadAt(text, at, r.lead, r.flags === 'i') || (at > 0 && r.notAfter?.(text.charCodeAt(at - 1)))) continue;
    (found ??= new Uint8Array(RULES.length))[i] = 1;
  }
  return found;
}

/** A longer text is read in chunks of this size; each rule scans only the chunks that may hold its lead. */
export const CHUNK_CHARS = 32 * 1024;
/** The longest lead: a chunk's pairs run this far into the next one, so a lead across the cut is seen. */
export const LEAD_REACH = 32;


/**
 * One linear pass over a long text: which character pairs each chunk holds. A rule whose
 * lead has a pair a chunk lacks skips that chunk, so dense prefixes of one rule (the
 * adversarial case) cost the other rules nothing, and a rule never scans the whole text
 * for a lead that occurs in one place.
 */
function chunkPairsOf(text: string): Uint32Array[] {
  const n = Math.ceil(text.length / CHUNK_CHARS);
  const sets: Uint32Array[] = [];
  for (let k = 0; k < n; k++) {
    const set = new Uint32Array(512);
    const to = Math.min(text.length, (k + 1) * CHUNK_CHARS + LEAD_REACH);
    let prev = text.charCodeAt(k * CHUNK_CHARS);
    for (let i = k * CHUNK_CHARS + 1; i < to; i++) {
      const c = text.charCodeAt(i);
      if ((prev | c) < 128) {
        const x = (prev << 7) | c;
        set[x >>> 5] |= 1 << (x & 31);
      }
      prev = c;
    }
    sets.push(set);
  }
  return sets;
}

const has = (set: Uint32Array, a: number, b: number): boolean => {
  const x = (a << 7) | b;
  return (set[x >>> 5] & (1 << (x & 31))) !== 0;
};
const upper = (c: number): number => (c >= 97 && c <= 122 ? c - 32 : c);

/** Whether every pair of adjacent characters of `lead` occurs in a chunk, in any case when `ci`. */
function pairsPresent(lead: string, set: Uint32Array, ci: boolean): boolean {
  for (let i = 1; i < lead.length; i++) {
    const a = lead.charCodeAt(i - 1);
    const b = lead.charCodeAt(i);
    if (has(set, a, b)) continue;
    if (!ci) return false;
    const A = upper(a);
    const B = upper(b);
    if (!has(set, A, b) && !has(set, a, B) && !has(set, A, B)) return false;
  }
  return true;
}

/** Whether `lead` occurs followed (after at most 5 quotes, spaces or letters of a longer word) by `=` or `:`. */
function assignedAfter(hay: string, lead: string): boolean {
  for (let at = hay.indexOf(lead); at >= 0; at = hay.indexOf(lead, at + 1)) {
    const tail = hay.slice(at + lead.length, at + lead.length + 16);
    if (/^[a-z_]{0,10}["'`]?[ \t]{0,4}[:=]/.test(tail)) return true;
  }
  return false;
}

/** The text in lower case, character for character (a few non-ASCII letters grow when lowered). */
function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * Scans `hay` with rule i from `from` for matches starting before `until`; adds their secret
 * spans. Returns where the rule's next scan must start (never before: scans move forward).
 */
function scan(i: number, text: string, hay: string, from: number, until: number, spans: number[], ends: EndCache, ahead: Ahead): number {
  const rule = RULES[i];
  const re = regexOf(i);
  re.lastIndex = from;
  for (let m = re.exec(hay); m !== null; m = re.exec(hay)) {
    const start = m.index;
    if (start >= until) return start;
    let end = start + m[0].length;
    if (rule.start && !rule.start(text, start)) {
      re.lastIndex = start + 1;
      continue;
    }
    if (rule.after) {
      const found = rule.after(text, end, ahead);
      if (found) spans.push(found[0], found[1]);
      re.lastIndex = found ? found[1] : end;
      continue;
    }
    if (i === 0) {
      // private-key: the header opens a block that runs to its END line.
      end = pemEnd(text, end, ends);
      spans.push(start, end);
      re.lastIndex = end;
      continue;
    }
    let len = 0;
    for (let g = 1; g < m.length; g++) len += m[g]?.length ?? 0;
    const at = len > 0 ? end - len : start;
    const secret = text.slice(at, end);
    if (secret === REDACTED || (rule.check && !rule.check(secret))) {
      re.lastIndex = start + 1;
      continue;
    }
    spans.push(at, end);
    re.lastIndex = end;
  }
  return hay.length;
}

/**
 * Characters from the most common to the least, a rough order (only which of a lead's characters
 * is rarest matters): lower-case letters by their frequency in English, then punctuation, digits
 * and capitals, which prose lacks (`-` of `sk-`, `_` of `k_`, `=` of `key=`); in code a lead's
 * letters are as likely there as its punctuation. A character not listed counts as the rarest.
 * Letters before punctuation counted 1 M instructions fewer a capture than the reverse (ADR 0081).
 */
const COMMON = ' etaoinsrhldcumwfgypbvkjxqz.,/-_"=:0123456789TSAIECNROLPDMHBFUGWYVKXJQZ';

/** Per rule, the character of its lead a text is checked for before the lead (the rarest, by COMMON), lower case for `i` rules. */
let keyChars: string[] | null = null;

function leadKeys(): string[] {
  if (keyChars) return keyChars;
  keyChars = RULES.map((r) => {
    let key = r.lead[0];
    let rank = -1;
    for (const c of r.lead) {
      const at = COMMON.indexOf(c);
      const k = at < 0 ? COMMON.length : at;
      if (k > rank) {
        rank = k;
        key = c;
      }
    }
    return key;
  });
  return keyChars;
}

/** Adds the secret spans (start, end pairs) every rule finds in the text (the i rules read it lower-cased). */
function collect(text: string, spans: number[]): void {
  let lower: string | undefined;
  if (text.length <= DISPATCH_UP_TO) {
    for (const i of rulesIn(text)) {
      const rule = RULES[i];
      const hay = rule.flags === 'i' ? (lower ??= lowerSameLength(text)) : text;
      if (rule.assign && !assignedAfter(hay, rule.lead)) continue;
      scan(i, text, hay, 0, hay.length, spans, { from: -1, at: -1 }, newAhead());
    }
    return;
  }
  charsSeen += text.length;
  const pairs = text.length > (charsSeen <= COLD_CHARS ? PAIRS_FROM_CHARS_COLD : PAIRS_FROM_CHARS) ? chunkPairsOf(text) : null;
  if (!pairs) {
    // Each rule's lead looked up whole (a native search of the text), after its rarest
    // character: a text without that character (asked once per text) cannot hold the lead.
    // Most texts lack most of them (digits, capitals, punctuation of token prefixes), so most
    // rules cost no search of the text: ~114 searches a text before (docs/adr/0081).
    const keys = leadKeys();
    const inText = new Map<string, boolean>();
    const inLower = new Map<string, boolean>();
    for (let i = 0; i < RULES.length; i++) {
      const rule = RULES[i];
      const ci = rule.flags === 'i';
      const hay = ci ? (lower ??= lowerSameLength(text)) : text;
      const seen = ci ? inLower : inText;
      const key = keys[i];
      let has = seen.get(key);
      if (has === undefined) {
        has = hay.includes(key);
        seen.set(key, has);
      }
      if (!has) continue;
      if (rule.assign ? assignedAfter(hay, rule.lead) : hay.includes(rule.lead)) scan(i, text, hay, 0, hay.length, spans, { from: -1, at: -1 }, newAhead());
    }
    return;
  }
  for (let i = 0; i < RULES.length; i++) {
    const rule = RULES[i];
    const ci = rule.flags === 'i';
    const ends: EndCache = { from: -1, at: -1 };
    const ahead = newAhead();
    let next = 0;
    for (let k = 0; k < pairs.length; k++) {
      const until = (k + 1) * CHUNK_CHARS;
      if (next >= until || !pairsPresent(rule.lead, pairs[k], ci)) continue;
      const hay = ci ? (lower ??= lowerSameLength(text)) : text;
      next = scan(i, text, hay, Math.max(next, k * CHUNK_CHARS), until, spans, ends, ahead);
    }
  }
}

export interface Redaction {
  text: string;
  /** How many secrets were replaced (overlapping findings count once). */
  count: number;
}

/** Redacts one string with the default rules, and says how many secrets it replaced. */
export function redactDefault(text: string): Redaction {
  const spans: number[] = [];
  collect(text, spans);
  if (spans.length === 0) return { text, count: 0 };
  const order: number[] = [];
  for (let k = 0; k < spans.length; k += 2) order.push(k);
  order.sort((a, b) => spans[a] - spans[b] || spans[b + 1] - spans[a + 1]);
  const out: string[] = [];
  let last = 0;
  let open = -1;
  let close = -1;
  let count = 0;
  const flush = (): void => {
    out.push(text.slice(last, open), REDACTED);
    last = close;
    count++;
  };
  for (const k of order) {
    const a = spans[k];
    const b = spans[k + 1];
    if (open >= 0 && a <= close) {
      if (b > close) close = b;
      continue;
    }
    if (open >= 0) flush();
    open = a;
    close = b;
  }
  flush();
  out.push(text.slice(last));
  return { text: out.join(''), count };
}

/** A user pattern (`session redact --pattern RE`), applied as given. */
export interface UserPattern {
  name: string;
  re: RegExp;
}

/**
 * The last few texts the default rules returned. Redaction is idempotent (test/redact.test.ts),
 * so one of them coming back (a hook redacts a prompt, then appends the event carrying it, which
 * redacts every string again) is returned as it is instead of scanned twice. A handful only:
 * a long-running server must not hold on to what it redacted.
 */
const recentlyRedacted: string[] = [];
const RECENT_KEPT = 4;
/** Shorter texts are scanned again: cheaper than comparing. */
const RECENT_MIN_CHARS = 64;
/** Longer ones are not kept: a server redacting large payloads holds at most 4 × this. */
const RECENT_MAX_CHARS = 256 * 1024;

/** Redacts one string: with the default rules, or with the given user patterns instead. */
export function redactText(text: string, patterns?: readonly UserPattern[]): string {
  if (!patterns) {
    if (text.length >= RECENT_MIN_CHARS && recentlyRedacted.includes(text)) return text;
    const out = redactDefault(text).text;
    if (out.length >= RECENT_MIN_CHARS && out.length <= RECENT_MAX_CHARS) {
      if (recentlyRedacted.length === RECENT_KEPT) recentlyRedacted.shift();
      recentlyRedacted.push(out);
    }
    return out;
  }
  let out = text;
  for (const p of patterns) {
    p.re.lastIndex = 0;
    out = out.replace(p.re, REDACTED);
  }
  return out;
}

/** Returns a copy of a JSON value with every string redacted (keys are kept). */
export function redactValue<T>(value: T, patterns?: readonly UserPattern[]): T {
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
export function userPattern(source: string): UserPattern {
  return { name: 'user', re: new RegExp(source, 'g') };
}
