// Contention on one pointer: many processes publishing at once, each re-reading on STALE.
// No lost update: final revision = initial + successes, and every success's expected
// (generation, revision) is distinct (two writers never both win the same state).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, batonAsync, readJsonl, ROOT, tmpDir } from './helpers.ts';

const SID = 'contended';
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';

function req(generation: string, revision: number, text: string | null): string {
  return JSON.stringify({
    schema_version: 3,
    session_id: SID,
    expected_generation: generation,
    expected_revision: revision,
    task_id: text === null ? null : TASK,
    target_status: text === null ? 'CLEARED' : 'CLEAN',
    pointer_text: text,
  });
}

function seed(home: string): { generation: string; revision: number } {
  const r = baton(['pointer', 'publish'], { home, input: req('ABSENT', 0, 'Goal: contend') });
  assert.equal(r.code, 0, r.stderr);
  return { generation: r.json.generation, revision: r.json.revision };
}

/** One worker process: `attempts` publishes through the library, re-reading state.json on STALE; worker 0 clears now and then. */
const WORKER = `
import { FsStore, cliWriter } from ${JSON.stringify(join(ROOT, 'src/store/store.ts'))};
import { publish } from ${JSON.stringify(join(ROOT, 'src/pointer/publish.ts'))};
import { readState } from ${JSON.stringify(join(ROOT, 'src/pointer/state.ts'))};
const [home, id, w, attempts] = process.argv.slice(1);
const store = new FsStore(home);
const writer = cliWriter();
let cur = readState(store.dir(id), id);
const successes = [];
let stale = 0;
const errors = [];
for (let i = 0; i < Number(attempts); i++) {
  const clear = w === '0' && i % 10 === 9;
  const r = publish(store, {
    schema_version: 3, session_id: id, expected_generation: cur.generation, expected_revision: cur.revision,
    task_id: clear ? null : ${JSON.stringify(TASK)}, target_status: clear ? 'CLEARED' : 'CLEAN', pointer_text: clear ? null : 'w' + w + ' i' + i,
  }, { writer });
  if (r.ok) { successes.push([cur.generation, cur.revision]); cur = { generation: r.generation, revision: r.revision }; }
  else if (r.error === 'STALE_GENERATION' || r.error === 'STALE_REVISION') { stale++; cur = readState(store.dir(id), id); }
  else errors.push(r);
}
process.stdout.write(JSON.stringify({ successes, stale, errors }));
`;

function runWorker(home: string, w: number, attempts: number): Promise<{ successes: [string, number][]; stale: number; errors: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', WORKER, home, SID, String(w), String(attempts)], { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`worker ${w} exited ${code}: ${err}`));
      else resolve(JSON.parse(out));
    });
  });
}

test('8 processes publishing with re-read on STALE lose no update: final revision = initial + successes, expectations distinct', async () => {
  const home = tmpDir();
  const initial = seed(home);
  const results = await Promise.all(Array.from({ length: 8 }, (_, w) => runWorker(home, w, 25)));
  const successes = results.flatMap((r) => r.successes);
  assert.deepEqual(
    results.flatMap((r) => r.errors),
    [],
  );
  assert.ok(successes.length > 0);
  const show = baton(['--json', 'pointer', 'show', SID], { home });
  assert.equal(show.json.revision, initial.revision + successes.length);
  const keys = new Set(successes.map(([g, r]) => `${g}/${r}`));
  assert.equal(keys.size, successes.length, 'no two successes share an expected (generation, revision)');
  // Every success is one journal record and one pointer event, in revision order.
  const journal = readJsonl(join(home, 'sessions', SID, 'journal.jsonl'));
  assert.equal(journal.length, 1 + successes.length);
  assert.deepEqual(
    journal.map((r) => r.revision),
    journal.map((_, i) => i + 1),
  );
  const events = readJsonl(join(home, 'sessions', SID, 'events.jsonl')).filter((e) => e.type.startsWith('pointer.'));
  assert.equal(events.length, 1 + successes.length);
  assert.equal(baton(['session', 'verify', SID], { home }).code, 0);
});

test('racing publishers through the binary with the same expectation: exactly one wins, the others are STALE_REVISION', async () => {
  const home = tmpDir();
  const s = seed(home);
  const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => batonAsync(['pointer', 'publish'], { home, input: req(s.generation, s.revision, `Goal: racer ${i}`) })));
  const ok = rs.filter((r) => r.code === 0);
  assert.equal(ok.length, 1, rs.map((r) => r.stdout + r.stderr).join('\n'));
  for (const r of rs.filter((x) => x.code !== 0)) {
    assert.equal(r.code, 2);
    assert.deepEqual(r.json, { ok: false, error: 'STALE_REVISION', current_generation: s.generation, current_revision: s.revision + 1 });
  }
  assert.equal(readJsonl(join(home, 'sessions', SID, 'journal.jsonl')).length, 2);
});

test('binary publishers that re-read with pointer show on STALE all land their updates', async () => {
  const home = tmpDir();
  const initial = seed(home);
  const worker = async (w: number): Promise<string[]> => {
    const wins: string[] = [];
    let cur = { ...initial };
    for (let i = 0; i < 2; ) {
      const r = await batonAsync(['pointer', 'publish'], { home, input: req(cur.generation, cur.revision, `w${w} i${i}`) });
      if (r.code === 0) {
        wins.push(`${cur.generation}/${cur.revision}`);
        cur = { generation: r.json.generation, revision: r.json.revision };
        i++;
      } else {
        assert.match(r.json.error, /^STALE_/);
        const show = await batonAsync(['--json', 'pointer', 'show', SID], { home });
        cur = { generation: show.json.generation, revision: show.json.revision };
      }
    }
    return wins;
  };
  const wins = (await Promise.all([0, 1, 2].map(worker))).flat();
  assert.equal(wins.length, 6);
  assert.equal(new Set(wins).size, 6);
  assert.equal(baton(['--json', 'pointer', 'show', SID], { home }).json.revision, initial.revision + 6);
});
