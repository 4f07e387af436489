// No secret reaches disk (issue 11): the real binary is sent FAKE secrets of the kinds the
// trial found leaking — in pointer_text (publish, migrate), a session title, appended text, a
// prompt — and a state.json planted as a pre-fix store would have it; then every file under
// the store (state.json, journal, events, manifest.json, context.md, frozen start contexts,
// retrospective.md, baton.db, the folder names) is searched for each secret.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Sample, SAMPLES } from './fixtures/secret-samples.ts';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
const pick = (id: string, n = 0): Sample => SAMPLES.filter((s) => s.id === id)[n] as Sample;
/** The kinds the trial found passing the old redactor, plus the classics. */
const KINDS = [
  pick('aws-secret-key-prose'),
  pick('stripe-key'),
  pick('authorization-header'),
  pick('authorization-header', 1),
  pick('generic-key'),
  pick('generic-password'),
  pick('generic-secret'),
  pick('sendgrid-key'),
  pick('huggingface-token'),
  pick('azure-storage-key'),
  pick('github-token'),
  pick('private-key'),
  // Issue 28.5: three formats the adversarial trial found on disk.
  pick('discord-bot-token'),
  pick('discord-webhook'),
  pick('url-password', 2),
];

function home(t: { after: (fn: () => void) => void }): string {
  const h = tmpDir();
  t.after(() => fs.rmSync(h, { recursive: true, force: true }));
  return h;
}

/** Every file and folder name under root, with its bytes (names included: an id made of a title). */
function everything(root: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d)) {
      const p = join(d, n);
      const st = fs.lstatSync(p);
      if (st.isDirectory()) {
        out.push({ path: p, bytes: Buffer.alloc(0) });
        walk(p);
      } else if (st.isFile()) out.push({ path: p, bytes: fs.readFileSync(p) });
    }
  };
  walk(root);
  return out;
}

/** Fails naming the file when any secret (or a long piece of it) is anywhere under root. */
function assertNoSecret(root: string, secrets: string[]): void {
  const files = everything(root);
  for (const secret of secrets) {
    const probes = [secret, ...secret.split('\n').filter((l) => l.length >= 24)];
    for (const f of files) {
      for (const probe of probes) {
        assert.ok(!f.path.includes(probe), `a secret in the path ${f.path}`);
        assert.ok(!f.bytes.includes(probe), `a secret (${probe.slice(0, 12)}…) in ${f.path.slice(root.length)}`);
      }
    }
  }
}

const publishReq = (sid: string, text: string, generation = 'ABSENT', revision = 0): string =>
  JSON.stringify({ schema_version: 3, session_id: sid, expected_generation: generation, expected_revision: revision, task_id: TASK, target_status: 'CLEAN', pointer_text: text });

test('publish: pointer_text is redacted before state.json, the journal digest, context.md, the start context and the retrospective', (t) => {
  const h = home(t);
  const sid = randomUUID();
  const text = `Goal: ship the upload client\n${KINDS.map((k) => k.text).join('\n')}\nNext: run the checks`;
  assert.ok(Buffer.byteLength(text) < 8192);
  const r = baton(['pointer', 'publish'], { home: h, input: publishReq(sid, text) });
  assert.equal(r.code, 0, r.stderr);
  // The receipt says redaction happened, next to the protocol's fields.
  assert.equal(r.json.ok, true);
  assert.ok(r.json.redacted >= KINDS.length, `redacted ${r.json.redacted}`);
  const dir = join(h, 'sessions', sid);
  const state = JSON.parse(fs.readFileSync(join(dir, 'state.json'), 'utf8'));
  assert.match(state.pointer_text, /^Goal: ship the upload client\n/);
  assert.match(state.pointer_text, /<redacted>/);
  // The journal's digest and byte count describe the stored (redacted) text.
  const [rec] = readJsonl(join(dir, 'journal.jsonl'));
  assert.equal(rec.pointer_digest, createHash('sha256').update(state.pointer_text).digest('hex'));
  assert.equal(rec.pointer_byte_count, Buffer.byteLength(state.pointer_text));
  // The pointer is shown and injected as stored.
  const shown = baton(['pointer', 'show', sid, '--json'], { home: h });
  assert.equal(shown.json.pointer_text, state.pointer_text);
  const start = baton(['hook', 'claude'], { home: h, input: JSON.stringify({ session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: h }) });
  assert.equal(start.code, 0, start.stderr);
  assert.match(start.stdout, /redacted/);
  assert.ok(fs.readdirSync(join(dir, 'contexts')).length >= 1, 'a frozen start context was written');
  const archived = baton(['session', 'archive', sid], { home: h });
  assert.equal(archived.code, 0, archived.stderr);
  assert.match(fs.readFileSync(join(dir, 'retrospective.md'), 'utf8'), /<redacted>/);
  assertNoSecret(h, KINDS.map((k) => k.secret));
});

test('publish: a text that redaction would push past 8192 bytes is refused, and nothing changes', (t) => {
  const h = home(t);
  const sid = randomUUID();
  const first = baton(['pointer', 'publish'], { home: h, input: publishReq(sid, 'Goal: g') });
  assert.equal(first.code, 0, first.stderr);
  const before = treeHash(h);
  const text = 'pwd=abcd '.repeat(900); // 8100 bytes; each `abcd` becomes `<redacted>`
  const r = baton(['pointer', 'publish'], { home: h, input: publishReq(sid, text, first.json.generation, 1) });
  assert.equal(r.code, 2);
  assert.equal(r.json.error, 'INVALID_REQUEST');
  assert.equal(r.json.detail, 'INVALID_FIELD:pointer_text');
  assert.match(r.json.message, /redacted/);
  assert.equal(treeHash(h), before);
});

test('a state.json written before the fix (secret inside) is redacted in every file made from it', (t) => {
  const h = home(t);
  const sid = randomUUID();
  const made = baton(['pointer', 'publish'], { home: h, input: publishReq(sid, 'Goal: g') });
  assert.equal(made.code, 0, made.stderr);
  const dir = join(h, 'sessions', sid);
  // Planted: a v2 state (readers accept it) holding secrets in the clear.
  const secrets = [pick('stripe-key'), pick('authorization-header')];
  fs.writeFileSync(
    join(dir, 'state.json'),
    JSON.stringify({ schema_version: 2, session_id: sid, revision: 1, status: 'CLEAN', task_id: TASK, pointer_text: `Goal: g\n${secrets.map((s) => s.text).join('\n')}`, updated_at: '2026-01-01T00:00:00Z' }),
  );
  const start = baton(['hook', 'claude'], { home: h, input: JSON.stringify({ session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: h }) });
  assert.equal(start.code, 0, start.stderr);
  const archived = baton(['session', 'archive', sid], { home: h });
  assert.equal(archived.code, 0, archived.stderr);
  // state.json itself is the planted file: every other file is checked.
  fs.rmSync(join(dir, 'state.json'));
  assertNoSecret(h, secrets.map((s) => s.secret));
  assert.match(fs.readFileSync(join(dir, 'context.md'), 'utf8'), /<redacted>/);
});

test('pointer migrate --apply redacts the v1 text', (t) => {
  const h = home(t);
  const sid = randomUUID();
  const env = join(home(t), 'v1.json');
  const s = pick('github-token');
  fs.writeFileSync(env, JSON.stringify({ envelope_version: 1, session_id: sid, task_id: TASK, text: `Goal: g\n${s.text}`, written_at: '2026-01-01T00:00:00Z' }));
  const dry = baton(['pointer', 'migrate', env, '--json'], { home: h });
  assert.ok(!dry.stdout.includes(s.secret), 'the dry run prints the redacted state');
  const r = baton(['pointer', 'migrate', env, '--apply'], { home: h });
  assert.equal(r.code, 0, r.stderr);
  fs.rmSync(env);
  assertNoSecret(h, [s.secret]);
  assert.match(fs.readFileSync(join(h, 'sessions', sid, 'state.json'), 'utf8'), /<redacted>/);
});

test('a title, appended text and a prompt: manifest.json, the folder name, events and baton.db hold no secret', (t) => {
  const h = home(t);
  const project = join(home(t), 'proj');
  fs.mkdirSync(project);
  const title = pick('github-token');
  const made = baton(['session', 'new', `deploy with ${title.secret}`, '--cwd', project, '--json'], { home: h });
  assert.equal(made.code, 0, made.stderr);
  const id = made.json.id as string;
  const appended = KINDS.map((k) => k.text).join('\n');
  const a = baton(['session', 'append', id, '--stdin'], { home: h, input: appended });
  assert.equal(a.code, 0, a.stderr);
  const sid = randomUUID();
  const prompt = baton(['hook', 'claude', '--aspects', 'prompt'], { home: h, input: JSON.stringify({ session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: appended, cwd: project }) });
  assert.equal(prompt.code, 0, prompt.stderr);
  // The index is built from the logs: titles and texts land in baton.db.
  const list = baton(['session', 'list', '--json'], { home: h, cwd: project });
  assert.equal(list.code, 0, list.stderr);
  assert.match(JSON.stringify(list.json), /deploy with <redacted>/);
  assert.equal(JSON.parse(fs.readFileSync(join(h, 'sessions', id, 'manifest.json'), 'utf8')).title, 'deploy with <redacted>');
  assertNoSecret(h, [title.secret, ...KINDS.map((k) => k.secret)]);
});
