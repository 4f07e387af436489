// The default rules: every rule of the table catches its realistic sample (FAKE, built at run
// time: test/fixtures/secret-samples.ts), ordinary prose, code, hashes and ids survive, the
// secret parts of overlapping findings are merged, and the PEM scan is structurally bounded.
// Speed is the bench's business (redact.worst), never asserted here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHUNK_CHARS, LEAD_REACH, PEM_MAX_CHARS, REDACTED, RULES, keyInProse, newAhead, redactDefault, redactText, redactValue, userPattern } from '../src/core/redact.ts';
import { AN, NEAR_MISSES, SAMPLES, fake } from './fixtures/secret-samples.ts';

test('a cold process and a warm one (the strategy switches after the first 256 KiB) give the same answer', () => {
  const filler = 'plain words for the filler, nothing to see here. ';
  const texts = SAMPLES.map((s, i) => `${filler.repeat(40 + (i % 7) * 60)}${s.text}\n${filler.repeat(30)}`);
  // The first test of this file: the process is cold here (each test file runs in its own process).
  const first = texts.map((t) => redactDefault(t).text);
  redactDefault(filler.repeat(Math.ceil((300 * 1024) / filler.length)));
  assert.deepEqual(
    texts.map((t) => redactDefault(t).text),
    first,
  );
  for (const [i, s] of SAMPLES.entries()) assert.ok(!first[i].includes(s.secret), s.id);
});

test('the table: unique ids, each with a reference rule and a sample', () => {
  const ids = RULES.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  const sampled = new Set(SAMPLES.map((s) => s.id));
  for (const r of RULES) {
    assert.ok(r.refs.length > 0 && r.refs.every((x) => /^(gitleaks|secretlint):[a-z0-9-]+$/.test(x)), `${r.id}: reference rules`);
    assert.ok(sampled.has(r.id), `${r.id} has a sample`);
    assert.ok(r.lead.length <= LEAD_REACH, `${r.id}: its lead fits the chunk overlap`);
    if (r.flags === 'i') {
      // An i rule runs on lower-cased text: outside character classes it has no capital.
      assert.equal(r.lead ?? '', (r.lead ?? '').toLowerCase(), `${r.id}: lead in lower case`);
      assert.doesNotMatch(r.src.replace(/\[[^\]]*\]/g, '').replace(/\\[a-zA-Z]/g, ''), /[A-Z]/, `${r.id}: source in lower case`);
    }
  }
});

test('every sample loses its secret and keeps the text around it', () => {
  for (const s of SAMPLES) {
    const r = redactDefault(s.text);
    assert.ok(!r.text.includes(s.secret), `${s.id}: ${JSON.stringify(r.text).slice(0, 200)}`);
    assert.ok(r.count >= 1 && r.text.includes(REDACTED), s.id);
    const at = s.text.indexOf(s.secret);
    // What comes before the secret's rule-anchor is kept (the key name, the scheme, the prose).
    const before = s.text.slice(0, Math.max(0, at - 40));
    assert.ok(r.text.startsWith(before.slice(0, Math.min(before.length, 8))), `${s.id}: the start is kept`);
  }
});

test('each rule catches its own sample on its own (no rule hides behind another)', () => {
  for (const s of SAMPLES) {
    const rule = RULES.find((r) => r.id === s.id);
    assert.ok(rule, s.id);
    const re = new RegExp(rule.src.replace(/\(\?<s[23]?>/g, '('), 'g');
    assert.ok(re.test(rule.flags === 'i' ? s.text.toLowerCase() : s.text), `${s.id}: its pattern matches its sample`);
  }
});

test('a short text finds what a long one finds, whatever character comes before a token (the lead boundary check)', () => {
  // Up to 128 characters the rules are picked by their leads (rulesIn), and a token rule whose
  // lead has one of its own characters before it is skipped; longer texts skip no rule by that.
  // Both must redact alike, the secret at a boundary or inside a longer token.
  const pad = ' '.repeat(200);
  let checked = 0;
  for (const s of SAMPLES) {
    if (s.secret.length > 100) continue;
    for (const before of ['', ' ', '"', '/', '=', 'x', 'Z', '7', '_', '-', '.', '+', '~']) {
      const text = `${before}${s.secret}`;
      if (text.length > 128) continue;
      const short = redactDefault(text);
      const long = redactDefault(text + pad);
      assert.equal(short.text + pad, long.text, `${s.id} after ${JSON.stringify(before)}`);
      assert.equal(short.count, long.count, `${s.id} after ${JSON.stringify(before)}`);
      checked++;
    }
  }
  assert.ok(checked > 500, `checked ${checked}`);
  // And the check does skip: a lead inside a hex digest or an id is no token.
  assert.equal(redactDefault('acaf4faac4540f6af6d286c66b11d9c983c9b39082bc3903c135b484aecfcd5f').count, 0);
  assert.equal(redactDefault('claude-mx6ghh6a-4646').count, 0);
});

test('a short text finds what a long one finds wherever its window cuts a sample, in any case', () => {
  // rulesIn looks each position's pair of characters up (and single-character leads alone): a lead
  // cut at the text's end, starting it, or in upper case for an i rule must be found (or not) as the
  // long path's per-rule search finds it.
  const pad = ' '.repeat(200);
  let checked = 0;
  for (const s of SAMPLES) {
    for (const text of [s.text, s.text.toUpperCase(), s.text.toLowerCase()]) {
      for (let k = 0; k < text.length; k += 5) {
        for (const len of [3, 17, 60, 128]) {
          const window = text.slice(k, k + len);
          const short = redactDefault(window);
          const long = redactDefault(window + pad);
          assert.equal(short.text + pad, long.text, `${s.id} at ${k}+${len}: ${JSON.stringify(window)}`);
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 5000, `checked ${checked}`);
});

test('near-misses are left alone: prose, code, git shas, hashes, uuids, placeholders', () => {
  for (const t of NEAR_MISSES) {
    const r = redactDefault(t);
    assert.equal(r.text, t, t);
    assert.equal(r.count, 0, t);
  }
});

test('assignments keep their name and lose their value, whatever the separator or quoting', () => {
  const v = `${fake(AN, 14, 300)}9`;
  const cases: [string, string][] = [
    [`DB_PASSWORD=${v}`, `DB_PASSWORD=${REDACTED}`],
    [`AWS_SECRET_ACCESS_KEY=${v}`, `AWS_SECRET_ACCESS_KEY=${REDACTED}`],
    [`MY_API_KEY: ${v}`, `MY_API_KEY: ${REDACTED}`],
    [`SERVICE_TOKEN = '${v}'`, `SERVICE_TOKEN = '${REDACTED}'`],
    [`{"password": "${v}"}`, `{"password": "${REDACTED}"}`],
    [`clientSecret: "${v}"`, `clientSecret: "${REDACTED}"`],
    [`api_key => ${v}`, `api_key => ${REDACTED}`],
    [`KEY=${v}`, `KEY=${REDACTED}`],
    [`password=hunter22 and secret: "s3cr3tvalue" token=abcd1234`, `password=${REDACTED} and secret: "${REDACTED}" token=${REDACTED}`],
  ];
  for (const [input, want] of cases) assert.equal(redactText(input), want, input);
});

test('a key in prose: 40 mixed characters within 80 after "secret" or "aws", on the same line', () => {
  const key = SAMPLES.find((x) => x.id === 'aws-key-prose')?.secret as string;
  assert.equal(redactText(`the secret: ${key}`), `the secret: ${REDACTED}`);
  assert.equal(redactText(`AWS creds, rotated today ${key}.`), `AWS creds, rotated today ${REDACTED}.`);
  const far = `the secret is below ${'x '.repeat(45)}${key}`;
  assert.equal(redactText(far), far, 'more than 80 characters away');
  const nextLine = `the secret is\n${key}`;
  assert.equal(redactText(nextLine), nextLine, 'on the next line');
  const sha = `aws deploy ${fake('0123456789abcdef', 40, 500)}`;
  assert.equal(redactText(sha), sha, 'a git sha is not a key');
});


/** The candidate runs of a text by the definition keyInProse implements, read naively: every run of key characters, then the filter. */
function naiveKeyRuns(text: string): [number, number][] {
  const out: [number, number][] = [];
  const runs = /[A-Za-z0-9+/]+/g;
  for (let m = runs.exec(text); m !== null; m = runs.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    const standalone = m[0].length === 40 && text[start - 1] !== '=' && text[end] !== '=';
    if (standalone && /[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]) && /[0-9]/.test(m[0])) out.push([start, end]);
  }
  return out;
}

/** The first candidate at or after `from`, when it is within 80 characters and on the same line. */
function naiveKeyInProse(text: string, runs: [number, number][], from: number): [number, number] | null {
  const first = runs.find(([start]) => start >= from);
  if (!first) return null;
  return first[0] - from <= 80 && !text.slice(from, first[0]).includes('\n') ? first : null;
}

test('a key in prose is found by reading only its reach, and the answers are those of the naive definition', () => {
  const check = (text: string, step: () => number, label: string): void => {
    const runs = naiveKeyRuns(text);
    // Queries move forward, as a scan's do.
    const ahead = newAhead();
    for (let from = 0; from <= text.length; from += step()) {
      assert.deepEqual(keyInProse(text, from, ahead), naiveKeyInProse(text, runs, from), `${label}, from ${from}: ${JSON.stringify(text.slice(from, from + 130))}`);
    }
  };
  const key = 'Ab1' + 'xY9'.repeat(12) + 'z';
  // The edges: a key 79 to 81 characters after the query, and runs of 39 to 41 around it.
  for (let d = 76; d <= 84; d++) {
    check(`secret${' '.repeat(d)}${key} tail`, () => 1, `distance ${d}`);
    check(`aws${' '.repeat(d)}${key}9 ${' '.repeat(d)}${key}`, () => 1, `41 then 40 at ${d}`);
  }
  check(`secret ${key}=`, () => 1, "'=' after");
  check(`secret =${key}`, () => 1, "'=' before");
  // A seeded generator of texts dense in what the rule looks at: the words, separators, runs of
  // key characters of every length around 40 (mixed or not), '=' next to them, new lines.
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const keyChars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const run = (len: number, chars = keyChars): string => Array.from({ length: len }, () => chars[rnd(chars.length)]).join('');
  const pieces = [
    () => 'secret',
    () => 'aws',
    () => ' ',
    () => ' '.repeat(rnd(90)),
    () => '\n',
    () => '=',
    () => `Ab1${run(37)}`,
    () => run(38 + rnd(5)),
    () => run(40, 'abcdef0123456789'),
    () => run(1 + rnd(60)),
    () => ', .',
  ];
  for (let round = 0; round < 200; round++) {
    let text = '';
    const size = 200 + rnd(1500);
    while (text.length < size) text += pieces[rnd(pieces.length)]();
    check(text, round % 2 ? () => 1 : () => 1 + rnd(12), `round ${round}`);
  }
});

test('URLs, headers and curl flags keep their shape', () => {
  const p = fake(AN, 12, 301);
  assert.equal(redactText(`postgres://app:${p}@db.example/x`), `postgres://app:${REDACTED}@db.example/x`);
  assert.equal(redactText(`Authorization: Bearer ${p}${p}`), `Authorization: Bearer ${REDACTED}`);
  assert.equal(redactText(`curl -u admin:${p} https://x`), `curl -u admin:${REDACTED} https://x`);
});

test('overlapping findings become one <redacted>; redacting twice changes nothing more', () => {
  const jwt = SAMPLES.find((s) => s.id === 'jwt')?.secret as string;
  const text = `Authorization: Bearer ${jwt}`;
  const once = redactDefault(text);
  assert.equal(once.text, `Authorization: Bearer ${REDACTED}`);
  assert.equal(once.count, 1);
  const all = SAMPLES.map((s) => s.text).join('\n');
  const r1 = redactDefault(all);
  const r2 = redactDefault(r1.text);
  assert.equal(r2.text, r1.text);
  assert.equal(r2.count, 0);
});

test('redaction is idempotent for every sample and near-miss: what redactText returned comes back unchanged, without a second scan', () => {
  for (const t of [...SAMPLES.map((s) => s.text), ...NEAR_MISSES]) {
    const once = redactDefault(t).text;
    assert.equal(redactDefault(once).text, once, JSON.stringify(t).slice(0, 120));
  }
  // redactText remembers its last few long outputs (a hook redacts a prompt, then appends it).
  const secret = SAMPLES.find((s) => s.id === 'jwt')?.secret as string;
  const long = (i: number): string => `request ${i}: the upload client retries with backoff, token ${secret} for now`;
  const out = redactText(long(0));
  assert.ok(!out.includes(secret) && out.length >= 64);
  assert.equal(redactText(out), out);
  // Anything else is scanned: a text never returned, and one pushed out by newer texts.
  for (let i = 1; i <= 8; i++) assert.ok(!redactText(long(i)).includes(secret), `text ${i}`);
  assert.equal(redactText(out), out);
  const planted = `${out} and again ${secret}`;
  assert.ok(!redactText(planted).includes(secret));
});

test('a PEM block: the header opens it, the END line closes it; without END the body is taken', () => {
  const body = Array.from({ length: 5 }, (_, i) => fake(`${AN}+/`, 64, 400 + i)).join('\n');
  const head = `-----${'BEGIN'} EC PRIVATE KEY-----`;
  const tail = `-----${'END'} EC PRIVATE KEY-----`;
  assert.equal(redactText(`a\n${head}\n${body}\n${tail}\nb`), `a\n${REDACTED}\nb`);
  // Truncated paste: no END. The header and the base64 lines go; the prose after survives.
  assert.equal(redactText(`a\n${head}\n${body}\n\nthen we deploy`), `a\n${REDACTED}\nthen we deploy`);
  assert.equal(redactText(`"${head}\\n${body.replace(/\n/g, '\\n')}\\n", "next": 1`), `"${REDACTED}", "next": 1`);
  // An END farther than PEM_MAX_CHARS does not swallow the text in between.
  const far = `${head}\n${body}\n${'x'.repeat(PEM_MAX_CHARS + 10)}\n${tail}`;
  const r = redactText(far);
  assert.ok(!r.includes(body.slice(0, 64)) && r.includes('x'.repeat(1000)));
  // The input: header lines repeated. All of it goes (touching findings merge into one).
  const out = redactDefault(`${head}\n`.repeat(5000));
  assert.equal(out.text, REDACTED);
  assert.equal(redactDefault(`${head}\n${'.. '.repeat(2)}`.repeat(3)).text, `${REDACTED}.. .. ${REDACTED}.. .. ${REDACTED}.. .. `);
});

test('a 10 MB payload is scanned whole: secrets anywhere are caught', () => {
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit\n';
  const big = filler.repeat(Math.ceil((10 * 1024 * 1024) / filler.length));
  const gh = SAMPLES.find((s) => s.id === 'github-token')?.secret as string;
  const at = [10, 256 * 1024 - 10, 3 * 256 * 1024 - 5, big.length - 100];
  let s = big;
  for (const p of at.reverse()) s = `${s.slice(0, p)} ${gh} ${s.slice(p)}`;
  const out = redactValue({ text: s, nested: [{ key: gh }] });
  assert.ok(!out.text.includes(gh));
  assert.equal(out.text.split(REDACTED).length - 1, 4);
  assert.equal(out.nested[0].key, REDACTED);
});

test('a long text is read in chunks: a secret whose lead straddles a chunk border is still caught', () => {
  const filler = 'plain words for the filler, nothing to see here. ';
  const pad = filler.repeat(Math.ceil((2 * CHUNK_CHARS) / filler.length));
  for (const s of SAMPLES) {
    const at = s.text.indexOf(s.secret);
    for (const d of [1, 3, 9]) {
      // The secret starts d characters before the border of the second chunk.
      const head = `${pad.slice(0, 2 * CHUNK_CHARS - d - at - 1)}\n`;
      const r = redactDefault(`${head}${s.text}\n${pad}`);
      assert.ok(!r.text.includes(s.secret), `${s.id} at border - ${d}`);
    }
  }
});

test('user patterns (session redact) replace their matches only, not the default rules', () => {
  const gh = SAMPLES.find((s) => s.id === 'github-token')?.secret as string;
  assert.equal(redactText(`codename falcon and ${gh}`, [userPattern('falcon')]), `codename ${REDACTED} and ${gh}`);
});

