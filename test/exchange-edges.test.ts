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
import { SAMPLE_EVENTS, chainedLog, manifestFor, readZip, writeZip } from './exchange-helpers.ts';
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

const ghp = (SAMPLES.find((s) => s.id === 'github-token') as { secret: string }).secret;
/** A PNG-like file: a NUL in its first bytes, so no text. */
const BINARY = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from(`tEXt ${ghp}`)]);

/** A session with a text artifact holding a token and a binary one. */
function withArtifacts(): { root: string; home: string; id: string } {
  const root = scratch();
  const home = join(root, 'store');
  const made = baton(['session', 'new', 'share', '--id', 'share', '--cwd', root, '--json'], { home });
  assert.equal(made.code, 0, made.stderr);
  fs.writeFileSync(join(root, 'notes.txt'), `deploy notes\ntoken: ${ghp}\nthat is all\n`);
  fs.writeFileSync(join(root, 'shot.png'), BINARY);
  for (const f of ['notes.txt', 'shot.png']) assert.equal(baton(['session', 'artifact', 'add', 'share', join(root, f)], { home }).code, 0);
  return { root, home, id: 'share' };
}

const layouts: { format: string; prefix: string }[] = [
  { format: 'baton', prefix: '' },
  { format: 'world-session-v1', prefix: '.agents/world.state/sessions/share/' },
];

for (const { format, prefix } of layouts) {
  test(`export (${format}): a text artifact goes out redacted, its digest is of what ships; a binary one is left out and named`, async () => {
    const s = withArtifacts();
    const before = treeHash(s.home);
    const out = join(s.root, `${format}.zip`);
    const r = baton(['session', 'export', s.id, '--format', format, '--out', out, '--json'], { home: s.home });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.json.artifacts.map((a: { name: string; kind: string; shipped: boolean; redacted: number }) => [a.name, a.kind, a.shipped, a.redacted]),
      [
        ['notes.txt', 'text', true, 1],
        ['shot.png', 'binary', false, 0],
      ],
    );
    const zip = await readZip(out);
    const notes = zip.get(`${prefix}artifacts/notes.txt`)?.data.toString('utf8');
    assert.equal(notes, 'deploy notes\ntoken: <redacted>\nthat is all\n');
    assert.equal(zip.has(`${prefix}artifacts/shot.png`), false);
    for (const [name, e] of zip) assert.ok(!e.data.includes(ghp), `the token in ${name}`);
    const manifestEntry = zip.get('baton-export.json');
    assert.ok(manifestEntry);
    const manifest = JSON.parse(manifestEntry.data.toString('utf8'));
    for (const e of manifest.entries) assert.equal(e.sha256, sha(zip.get(e.name)?.data as Buffer), e.name);
    const text = baton(['session', 'export', s.id, '--format', format, '--out', join(s.root, `${format}-2.zip`)], { home: s.home });
    assert.match(text.stdout, /artifact notes\.txt: 1 secret redacted/);
    assert.match(text.stdout, /artifact shot\.png: binary, left out \(--include-binary/);
    assert.equal(treeHash(s.home), before, 'export writes nothing in the store');
    // The import's artifact event names the digest of the file it got.
    const imp = baton(['session', 'import', out, '--cwd', s.root, '--json'], { home: s.home });
    assert.equal(imp.code, 0, imp.stderr);
    const dir = join(s.home, 'sessions', imp.json.id);
    const added = fs
      .readFileSync(join(dir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'artifact.added' && e.payload.path === 'notes.txt');
    assert.equal(added.payload.sha256, sha(fs.readFileSync(join(dir, 'artifacts', 'notes.txt'))));
  });
}

test('export --include-binary: the binary artifact ships byte for byte, said so in the summary', async () => {
  const s = withArtifacts();
  const out = join(s.root, 'all.zip');
  const r = baton(['session', 'export', s.id, '--out', out, '--include-binary'], { home: s.home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /artifact shot\.png: binary, shipped as it is/);
  const zip = await readZip(out);
  assert.deepEqual(zip.get('artifacts/shot.png')?.data, BINARY);
  assert.equal(zip.get('artifacts/notes.txt')?.data.includes(ghp), false);
  const help = baton(['session', 'export', '--help'], { home: s.home });
  assert.match(help.stdout, /--include-binary/);
});
