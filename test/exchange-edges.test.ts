// Export and import at their edges (issues 28 and 29), through the real binary: an imported
// session's id is made from the redacted title; an import on a full disk is refused with
// WS206 and leaves the home as it was.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { EventInput } from '../src/core/events.ts';
import { SAMPLE_EVENTS, chainedLog, manifestFor, writeZip } from './exchange-helpers.ts';
import { SAMPLES } from './fixtures/secret-samples.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = tmpDir();
  dirs.push(d);
  return d;
};
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const awsKeyId = (SAMPLES.find((s) => s.id === 'aws-access-key-id') as { secret: string }).secret;

/** Every path under root, and whether any file or name holds `needle` (any case: an id is lower-cased). */
function holds(root: string, needle: string): string | null {
  const low = needle.toLowerCase();
  const walk = (d: string): string | null => {
    for (const n of fs.readdirSync(d)) {
      const p = join(d, n);
      if (p.toLowerCase().includes(low)) return p;
      const st = fs.lstatSync(p);
      if (st.isDirectory()) {
        const hit = walk(p);
        if (hit) return hit;
      } else if (st.isFile() && fs.readFileSync(p).toString('latin1').toLowerCase().includes(low)) return p;
    }
    return null;
  };
  return walk(root);
}

test('import: an AWS key id in the manifest title, or in --title, names no folder, event, index row or feed line', () => {
  const root = scratch();
  const home = join(root, 'store');
  const entries = [{ name: 'events.jsonl', data: chainedLog(SAMPLE_EVENTS) }, { name: 'artifacts/n.md', data: Buffer.from('hi\n') }];
  const zip = writeZip(join(root, 'x.zip'), [...entries, { name: 'baton-export.json', data: manifestFor(entries, { title: `deploy ${awsKeyId}` }) }]);
  const a = baton(['session', 'import', zip, '--cwd', root, '--json'], { home });
  assert.equal(a.code, 0, a.stderr);
  assert.doesNotMatch(a.json.id, /akia/);
  const b = baton(['session', 'import', zip, '--cwd', root, '--title', `rotate ${awsKeyId} now`, '--json'], { home });
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.json.id, /^rotate-redacted-now-/);
  // The index is built from the logs: baton.db and index.feed hold what the import wrote.
  assert.equal(baton(['session', 'list', '--all', '--json'], { home }).code, 0);
  assert.equal(holds(home, awsKeyId), null);
});

/** Runs `mount` (root only); null when this process may not. */
function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

test('import on a full disk: WS206, exit 2, the JSON refusal on stdout, no .import-* folder, the home as before', { skip: isRoot ? false : 'needs root to mount a 2 MiB tmpfs' }, (t) => {
  const root = scratch();
  const home = join(root, 'store');
  fs.mkdirSync(home);
  if (!mountTmpfs(home, '2m')) return t.skip('mount -t tmpfs failed (no CAP_SYS_ADMIN here)');
  t.after(() => execFileSync('umount', [home]));
  assert.equal(baton(['session', 'new', 'first', '--cwd', root], { home }).code, 0);
  const big = randomBytes(3 * 1024 * 1024); // incompressible: 3 MB on disk
  const events: EventInput[] = [...SAMPLE_EVENTS.slice(0, 2), { type: 'artifact.added', surface: 'cli', actor: 'agent', payload: { path: 'big.bin', sha256: sha(big) } }];
  const entries = [{ name: 'events.jsonl', data: chainedLog(events) }, { name: 'artifacts/big.bin', data: big }];
  const zip = writeZip(join(root, 'big.zip'), [...entries, { name: 'baton-export.json', data: manifestFor(entries, { events: 3, last_seq: 3 }) }]);
  const before = treeHash(home);
  const r = baton(['session', 'import', zip, '--cwd', root, '--json'], { home });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.json.ok, false);
  assert.equal(r.json.error.code, 'WS206');
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.deepEqual(fs.readdirSync(join(home, 'sessions')).filter((n) => n.startsWith('.import-')), []);
  assert.equal(treeHash(home), before);
});
