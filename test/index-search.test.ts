// `baton search` (index.md): FTS5 over context entries, prompts, titles and artifact names,
// ranked hits with session, seq, type and a highlighted snippet; redacted text never indexed
// in the clear — neither the default secret patterns nor `session redact` patterns.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { searchSessions } from '../src/index/api.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { WRITER, append, makeSession } from './index-helpers.ts';
import { FsStore } from '../src/store/store.ts';

const SECRET = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

function fixture() {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const elsewhere = tmpDir('baton-ws-');
  const id = makeSession(home, 'Quasar telemetry', ws, { texts: ['the gyroscope drifts after calibration', `deploy key is ${SECRET}`] });
  const promptSeq = append(home, id, 'prompt.submitted', { episode: 'ep-1', text: 'please investigate the flux capacitor', digest: 'd' }, 'hook:claude');
  const artSeq = append(home, id, 'artifact.added', { path: 'notes/findings-report.md', sha256: 'a'.repeat(64) });
  const other = makeSession(home, 'Other place', elsewhere, { texts: ['the gyroscope is fine here'] });
  return { home, ws, elsewhere, id, other, promptSeq, artSeq };
}

test('search finds words of context entries, prompts, titles and artifact names, with session, seq, type and a snippet', () => {
  const f = fixture();
  const byWord = (w: string) => baton(['search', '--all', '--json', w], { home: f.home }).json.hits;
  const ctx = byWord('calibration');
  assert.equal(ctx.length, 1);
  assert.deepEqual([ctx[0].session, ctx[0].seq, ctx[0].type], [f.id, 3, 'context.appended']);
  assert.match(ctx[0].snippet, /\*\*calibration\*\*/);
  const prompt = byWord('capacitor');
  assert.deepEqual([prompt[0].session, prompt[0].seq, prompt[0].type], [f.id, f.promptSeq, 'prompt.submitted']);
  assert.equal(byWord('quasar')[0].type, 'session.created');
  assert.equal(byWord('findings')[0].seq, f.artSeq);
  assert.equal(byWord('capac*').length, 1, 'a trailing * matches a prefix');
  assert.equal(byWord('gyroscope').length, 2);
  const text = baton(['search', '--all', 'gyroscope'], { home: f.home });
  assert.equal(text.code, 0);
  assert.match(text.stdout, /SESSION\s+SEQ\s+AT\s+WHO\s+SNIPPET/);
});

test('search is scoped like list: the current workspace by default, --cwd, --all; --type and --limit filter', () => {
  const f = fixture();
  const here = baton(['search', '--json', 'gyroscope'], { home: f.home, cwd: f.ws }).json.hits;
  assert.deepEqual(here.map((h: { session: string }) => h.session), [f.id]);
  const there = baton(['search', '--json', '--cwd', f.elsewhere, 'gyroscope'], { home: f.home }).json.hits;
  assert.deepEqual(there.map((h: { session: string }) => h.session), [f.other]);
  assert.equal(baton(['search', '--all', '--json', '--type', 'prompt.submitted', 'gyroscope'], { home: f.home }).json.hits.length, 0);
  assert.equal(baton(['search', '--all', '--json', '--limit', '1', 'gyroscope'], { home: f.home }).json.hits.length, 1);
});

test('a secret redacted at write is not findable, and neither is text hidden by session redact', () => {
  const f = fixture();
  const hits = (q: string) => searchSessions(f.home, q, { cwd: null, limit: 10 }).hits;
  assert.equal(hits(SECRET).length, 0);
  assert.equal(hits('ghp_0123456789abcdefghijklmnopqrstuvwxyzAB').length, 0);
  assert.equal(hits('deploy').length, 1);
  assert.match(hits('deploy')[0].snippet, /<redacted>/);
  // session redact: a context.rewritten naming the seqs and the pattern hides past matches.
  const store = new FsStore(f.home);
  store.append(f.id, { type: 'context.rewritten', surface: 'cli', actor: 'user', payload: { prev_seq: 3, summary: 'hid a codename', redacts: [3], pattern: 'gyro\\w+' } }, WRITER);
  assert.deepEqual(hits('gyroscope').map((h) => h.session), [f.other], 'caught up incrementally');
  assert.equal(hits('calibration').length, 1, 'the rest of the entry stays searchable');
  for (const n of ['baton.db', 'baton.db-wal', 'baton.db-shm']) fs.rmSync(join(f.home, n), { force: true });
  assert.deepEqual(hits('gyroscope').map((h) => h.session), [f.other], 'and after a rebuild');
});

test('a query with no words is refused and changes nothing', () => {
  const f = fixture();
  baton(['search', '--all', 'x'], { home: f.home });
  const before = treeHash(f.home);
  const r = baton(['search', '--all', '--json', '***'], { home: f.home });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'USAGE');
  assert.match(r.stderr, /^baton: USAGE /);
  assert.equal(baton(['search', '--all', '--limit', '0', 'x'], { home: f.home }).code, 2);
  assert.equal(treeHash(f.home), before);
});
