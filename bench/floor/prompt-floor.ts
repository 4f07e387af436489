// The contract's floor for a CLEAN→DIRTY prompt (bench.md, `hook.prompt` details; docs/adr/0018,
// "Fourth pass"): every disk step the real prompt hook makes, in the same order, written as one
// straight-line function — no store classes, no adapters, no error handling beyond a throw, no
// validation beyond what picks the path. It redacts the prompt with baton's own rules and hashes
// with baton's own SHA-256, and the bench runs it through a V8 code cache as the hook's loader
// does, so what it measures is the cost of the work itself: the reads, the writes, the three
// fsyncs, the rename, the mutex, the chain, the redaction. It is a measuring stick, not a
// second implementation: its events are chained with the store's own encoder and its sidecar is
// exact, so the store stays valid for the bench's next publish, but its projections (manifest,
// episodes, said-once) are approximations the next reader of the store may rebuild.
// Input: the Claude UserPromptSubmit payload on stdin, BATON_HOME in the environment.
import * as fs from 'node:fs';
import { encodeEvent } from '../../src/core/events.ts';
import { sha256Hex } from '../../src/core/hash.ts';
import { redactText } from '../../src/core/redact.ts';

const C = fs.constants;
const readJson = (path: string) => JSON.parse(fs.readFileSync(path, 'utf8'));

/** Reads bytes [from, end of file) of an open file. */
function readFrom(fd: number, from: number, size: number): string {
  const buf = Buffer.allocUnsafe(Math.max(0, size - from));
  fs.readSync(fd, buf, 0, buf.length, from);
  return buf.toString('utf8');
}

/** Rewrites a small file in place (the projections: no fsync, as the hook writes them). */
function rewrite(path: string, text: string): void {
  const fd = fs.openSync(path, C.O_WRONLY | C.O_NOFOLLOW);
  fs.fstatSync(fd);
  fs.writeSync(fd, text, 0);
  fs.closeSync(fd);
}

function prompt(home: string): void {
  const input = Buffer.allocUnsafe(65536);
  const payload = JSON.parse(input.toString('utf8', 0, fs.readSync(0, input, 0, input.length, null)));
  if (payload.hook_event_name !== 'UserPromptSubmit' || typeof payload.session_id !== 'string' || typeof payload.prompt !== 'string') throw new Error('not a prompt');
  const id: string = payload.session_id;
  const dir = `${home}/sessions/${id}`;
  const now = new Date().toISOString();
  const text = redactText(payload.prompt);
  const digest = sha256Hex(text);
  // The session: not a team replica, exists; its open episode (the projection caught up).
  try {
    fs.lstatSync(`${dir}/team.json`);
  } catch {}
  fs.statSync(`${dir}/events.jsonl`);
  const episodes = readJson(`${dir}/episodes.json`);
  let fd = fs.openSync(`${dir}/events.jsonl`, 'r');
  for (const line of readFrom(fd, episodes.offset, fs.fstatSync(fd).size).split('\n')) if (line) JSON.parse(line);
  fs.closeSync(fd);
  // The pointer: read, decide, then the mutex and the read again.
  const before = fs.readFileSync(`${dir}/state.json`);
  const state = JSON.parse(before.toString('utf8'));
  if (state.schema_version !== 3 || state.session_id !== id || state.status !== 'CLEAN') throw new Error('not a CLEAN pointer');
  fs.lstatSync(`${home}/sessions`);
  fs.lstatSync(dir);
  const mutex = fs.openSync(`${dir}/.mutex`, C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o600);
  fs.writeSync(mutex, `${process.pid} floor ${Date.now()} ${Math.random().toString(36).slice(2, 10)}`);
  fs.fstatSync(mutex);
  let shownRevision: number;
  try {
    if (!fs.readFileSync(`${dir}/state.json`).equals(before)) throw new Error('the pointer moved');
    // state.json: a temp file, fsync, read back, rename, fsync the folder.
    const next = { ...state, revision: state.revision + 1, status: 'DIRTY', updated_at: `${now.slice(0, 19)}Z` };
    const stateText = JSON.stringify(next);
    const tmp = `${dir}/.state.json.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    fd = fs.openSync(tmp, C.O_RDWR | C.O_CREAT | C.O_EXCL, 0o600);
    fs.writeSync(fd, stateText);
    fs.fsyncSync(fd);
    fs.fstatSync(fd);
    if (JSON.parse(readFrom(fd, 0, stateText.length)).revision !== next.revision) throw new Error('read back');
    fs.closeSync(fd);
    fs.renameSync(tmp, `${dir}/state.json`);
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    // The log: its sidecar, two chained events in one write, fsync, the sidecar again.
    fs.lstatSync(`${dir}/events.jsonl`);
    const sidecar = readJson(`${dir}/.verified`);
    try {
      fs.lstatSync(`${dir}/team.json`);
    } catch {}
    fd = fs.openSync(`${dir}/events.jsonl`, C.O_WRONLY | C.O_APPEND | C.O_NOFOLLOW, 0o600);
    if (fs.fstatSync(fd, { bigint: true }).size !== BigInt(sidecar.size)) throw new Error('the log moved');
    const pointerDigest = sha256Hex(next.pointer_text);
    const bytes = Buffer.byteLength(next.pointer_text);
    const submitted = encodeEvent(sidecar.seq + 1, now, { type: 'prompt.submitted', surface: 'hook:claude', actor: 'user', payload: { episode: episodes.open[0]?.episode ?? null, text, digest } }, sidecar.h);
    const published = encodeEvent(
      sidecar.seq + 2,
      now,
      {
        type: 'pointer.published',
        surface: 'hook:claude',
        actor: 'system',
        payload: { generation: next.generation, revision: next.revision, status: 'DIRTY', task_id: next.task_id, pointer_digest: pointerDigest, pointer_byte_count: bytes, previous_generation: state.generation, previous_revision: state.revision, previous_status: 'CLEAN', source: 'hook:prompt' },
      },
      submitted.h,
    );
    fs.writeSync(fd, submitted.line + published.line);
    fs.fsyncSync(fd);
    const st = fs.fstatSync(fd, { bigint: true });
    fs.closeSync(fd);
    fd = fs.openSync(`${dir}/.verified`, C.O_WRONLY | C.O_CREAT | C.O_NOFOLLOW, 0o600);
    fs.fstatSync(fd);
    const key = { size: Number(st.size), ctime: String(st.ctimeNs), ino: String(st.ino) };
    fs.writeSync(fd, JSON.stringify({ ...sidecar, ...key, seq: sidecar.seq + 2, h: published.h }).padEnd(512), 0);
    fs.closeSync(fd);
    // The projections: the manifest, the episodes (caught up again), the journal line.
    fs.statSync(`${dir}/manifest.json`);
    const manifest = readJson(`${dir}/manifest.json`);
    manifest.status.last_event_seq = sidecar.seq + 2;
    manifest.status.last_touched_at = now;
    rewrite(`${dir}/manifest.json`, JSON.stringify(manifest, null, 2));
    const again = readJson(`${dir}/episodes.json`);
    fd = fs.openSync(`${dir}/events.jsonl`, 'r');
    const size = fs.fstatSync(fd).size;
    for (const line of readFrom(fd, again.offset, size).split('\n')) if (line) JSON.parse(line);
    fs.closeSync(fd);
    fs.statSync(`${dir}/events.jsonl`);
    again.offset = size;
    if (again.open[0]) again.open[0].prompts++;
    rewrite(`${dir}/episodes.json`, JSON.stringify(again));
    const journalSize = fs.statSync(`${dir}/journal.jsonl`).size;
    fd = fs.openSync(`${dir}/journal.jsonl`, 'r');
    fs.fstatSync(fd);
    readFrom(fd, journalSize - 1, journalSize);
    fs.closeSync(fd);
    const record = {
      journal_version: 1,
      session_id: id,
      event: 'PUBLISH',
      revision: next.revision,
      generation: next.generation,
      status: 'DIRTY',
      task_id: next.task_id,
      pointer_digest: pointerDigest,
      pointer_byte_count: bytes,
      previous_revision: state.revision,
      previous_status: 'CLEAN',
      recorded_at: next.updated_at,
    };
    fd = fs.openSync(`${dir}/journal.jsonl`, C.O_WRONLY | C.O_CREAT | C.O_APPEND | C.O_NOFOLLOW, 0o600);
    fs.writeSync(fd, `${JSON.stringify(record)}\n`);
    fs.closeSync(fd);
    shownRevision = next.revision;
  } finally {
    fs.fstatSync(mutex);
    fs.unlinkSync(`${dir}/.mutex`);
    fs.closeSync(mutex);
  }
  // The index's feed line.
  fs.statSync(`${home}/index.feed`);
  fd = fs.openSync(`${home}/index.feed`, C.O_WRONLY | C.O_CREAT | C.O_APPEND | C.O_NOFOLLOW, 0o600);
  fs.fstatSync(fd);
  fs.writeSync(fd, `${id}\n`);
  fs.closeSync(fd);
  // The context: the journal's tail (the DIRTY fields), the refs, said-once, the last runs.
  fd = fs.openSync(`${dir}/journal.jsonl`, 'r');
  const journal = fs.fstatSync(fd).size;
  const records = readFrom(fd, Math.max(0, journal - 4096), journal).split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l));
  fs.closeSync(fd);
  try {
    fs.lstatSync(`${dir}/refs`);
  } catch {}
  const shownPath = `${dir}/.shown/claude.${payload.session_id}.json`;
  const shown = readJson(shownPath);
  Object.assign(shown, { status: 'DIRTY', revision: shownRevision, next_action: 'MERGE_THEN_REPUBLISH' });
  rewrite(shownPath, JSON.stringify(shown));
  fs.lstatSync(`${home}/.baton-home`);
  fs.lstatSync(`${home}/hooks`);
  for (const aspect of ['pointer', 'prompt']) rewrite(`${home}/hooks/claude.${aspect}.last`, `${now} UserPromptSubmit ok\n`);
  const context = [
    'TASK_POINTER_V2',
    `SESSION=${id}`,
    'STATUS=DIRTY',
    `REVISION=${shownRevision}`,
    'NEXT_ACTION=MERGE_THEN_REPUBLISH',
    `PUBLISHER=${shown.publisher}`,
    `RECORDS=${records.length}`,
  ].join('\n');
  fs.writeSync(1, JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: context } }));
}

prompt(process.env.BATON_HOME ?? '');
