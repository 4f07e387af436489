// The repository stands alone: nothing in it reads or names the workspace outside it, and
// docs/codes.md lists every error code the sources can emit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT } from './helpers.ts';

/** The repository's files: git's list in a checkout, else every file outside node_modules, dist and dot folders. */
function trackedFiles(): string[] {
  const r = spawnSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  const listed =
    r.status === 0
      ? r.stdout.split('\n')
      : (fs.readdirSync(ROOT, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => !/^(node_modules|dist|\.[^/]+)(\/|$)/.test(f));
  return listed.filter((f) => f && !f.startsWith('node_modules/') && fs.existsSync(join(ROOT, f)) && fs.statSync(join(ROOT, f)).isFile());
}

// The folder's name is put together here, so that this file names it no more than any other.
const WORKSPACE_DIR = ['sha', 'red'].join('');

test('no file of the repository reads or names the project workspace folder outside it', () => {
  assert.ok(FIXTURES.startsWith(ROOT), 'the provider fixtures live inside the repository');
  const outside = new RegExp(`\\.\\./${WORKSPACE_DIR}\\b|/work/${WORKSPACE_DIR}\\b|${WORKSPACE_DIR}/(spec|fixtures|seeds|research)\\b`);
  const hits = trackedFiles()
    .filter((f) => !/\.(png|jpg|db|gz|zip)$/.test(f))
    .filter((f) => outside.test(fs.readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(hits, []);
});

test('help texts point to docs/ or nowhere, never to a bare contract page like (pointer.md)', () => {
  const src = trackedFiles().filter((f) => f.startsWith('src/cli/') && f.endsWith('.ts'));
  for (const f of src) {
    for (const m of fs.readFileSync(join(ROOT, f), 'utf8').matchAll(/\.(?:description|option|argument)\(([^)]*)\)/g)) {
      assert.ok(!/\((?!docs\/)[a-z-]+\.md\b/.test(m[1]), `${f}: ${m[1]}`);
    }
  }
});

test('docs/codes.md lists every error code the sources emit', () => {
  const codes = new Set<string>();
  for (const f of trackedFiles().filter((x) => x.startsWith('src/') && x.endsWith('.ts'))) {
    const text = fs.readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/\b(WS|HK|EP)\d{3}\b/g)) codes.add(m[0]);
    for (const m of text.matchAll(/\bfail\('([A-Z_0-9]+)'/g)) codes.add(m[1]);
    for (const m of text.matchAll(/\b(?:code|error|detail): '([A-Z][A-Z_]{3,})'/g)) codes.add(m[1]);
  }
  codes.delete('WS301'); // reserved for `skill check` (not built yet): named in src/core/errors.ts only
  const doc = fs.readFileSync(join(ROOT, 'docs', 'codes.md'), 'utf8');
  const missing = [...codes].filter((c) => !doc.includes(`\`${c}\``)).sort();
  assert.deepEqual(missing, []);
  assert.ok(codes.size > 30, `found ${codes.size} codes`);
});
