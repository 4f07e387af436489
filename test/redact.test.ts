// The default secret patterns: each kind is caught, ordinary text is kept, and long
// payloads are scanned in chunks without missing a secret on a chunk border.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REDACTED, redactText, redactValue } from '../src/core/redact.ts';

const SECRETS: Record<string, string> = {
  pem: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----',
  aws: 'AKIAIOSFODNN7EXAMPLE',
  github: 'ghp_1234567890abcdefghijklmnopqrstuvwxyz',
  githubFine: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP',
  gitlab: 'glpat-abcdefghij1234567890',
  slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  openai: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
  anthropic: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEFGH',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
};

test('every default kind of secret is replaced by <redacted>', () => {
  for (const [kind, secret] of Object.entries(SECRETS)) {
    const out = redactText(`before ${secret} after`);
    assert.ok(!out.includes(secret), kind);
    assert.ok(out.includes(REDACTED), kind);
    assert.ok(out.startsWith('before ') && out.endsWith(' after'), `${kind}: surrounding text kept`);
  }
});

test('assignments keep their key and lose their value', () => {
  assert.equal(redactText('password=hunter22 and secret: "s3cr3tvalue" token=abcd1234'), `password=${REDACTED} and secret: "${REDACTED}" token=${REDACTED}`);
  assert.equal(redactText('postgres://app:pa55word@db.example/x'), `postgres://app:${REDACTED}@db.example/x`);
});

test('ordinary prose and code are left alone', () => {
  const text = 'The password rule is documented in AUTH.md; skip tokens shorter than four.\nconst x = a.b.c;';
  assert.equal(redactText(text), text);
});

test('a 10 MB payload is scanned whole: secrets at chunk borders and at the end are caught', () => {
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit\n';
  let big = '';
  while (big.length < 10 * 1024 * 1024) big += filler;
  const at = [256 * 1024 - 10, 3 * 256 * 1024 - 5, big.length - 100];
  let s = big;
  for (const p of at.reverse()) s = `${s.slice(0, p)} ${SECRETS.aws} ${s.slice(p)}`;
  const out = redactValue({ text: s, nested: [{ key: SECRETS.github }] });
  assert.ok(!out.text.includes(SECRETS.aws));
  assert.equal(out.text.split(REDACTED).length - 1, 3);
  assert.equal(out.nested[0].key, REDACTED);
});
