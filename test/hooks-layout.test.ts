// The folder tells its role: src/hooks is the hook path, and nothing reachable from any
// file in it imports the SQLite index, better-sqlite3 or the command line (the commands
// doctor, verify and demo live in src/commands). Checked on the sources' import graph, so a
// file that the bundle happens not to reach today is held to the rule too.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { ROOT, tmpDir } from './helpers.ts';

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s*['"]([^'"]+)['"]/g;

/** Every module specifier a TypeScript file imports (static, dynamic, require). */
export function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
}

/** Files and packages reachable from `start` through relative imports, as repo-relative paths or package names. */
function reachable(start: string[]): Map<string, string> {
  const seen = new Map<string, string>(); // node -> the file that imported it
  const queue = start.map((f) => ({ f, from: '(root)' }));
  while (queue.length) {
    const { f, from } = queue.shift()!;
    const key = f.startsWith('/') ? relative(ROOT, f) : f;
    if (seen.has(key)) continue;
    seen.set(key, from);
    if (!f.startsWith('/')) continue; // a package: not followed
    for (const spec of importsOf(f)) {
      if (spec.startsWith('.')) queue.push({ f: resolve(dirname(f), spec), from: key });
      else queue.push({ f: spec, from: key });
    }
  }
  return seen;
}

const HOOKS = join(ROOT, 'src', 'hooks');
const hookFiles = fs
  .readdirSync(HOOKS, { recursive: true, encoding: 'utf8' })
  .filter((n) => n.endsWith('.ts'))
  .map((n) => join(HOOKS, n));

test('the import scanner sees static, type and dynamic imports (so the layout rule can fail)', () => {
  const dir = tmpDir();
  try {
    const f = join(dir, 'a.ts');
    fs.writeFileSync(f, "import x from 'better-sqlite3';\nimport { type Y } from '../src/index/db.ts';\nimport './side.ts';\nconst z = await import('./c.ts');\n");
    assert.deepEqual(importsOf(f).sort(), ['../src/index/db.ts', './c.ts', './side.ts', 'better-sqlite3']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('no file under src/hooks reaches src/index, src/cli, src/commands, src/team, better-sqlite3 or postgres', () => {
  assert.ok(hookFiles.some((f) => f.endsWith('dispatch.ts')));
  const graph = reachable(hookFiles);
  assert.ok(graph.has('src/store/store.ts') && graph.has('src/providers/claude.ts'), 'the walk follows relative imports');
  const bad = [...graph.entries()].filter(([k]) => /^src\/(index|cli|commands|team)\//.test(k) || k === 'src/lib.ts' || k === 'better-sqlite3' || k === 'postgres');
  assert.deepEqual(
    bad.map(([k, from]) => `${from} -> ${k}`),
    [],
  );
});

test('the commands doctor, verify and demo do not live in src/hooks', () => {
  for (const n of ['doctor.ts', 'verify.ts', 'demo.ts']) {
    assert.ok(!fs.existsSync(join(HOOKS, n)), `src/hooks/${n}`);
    assert.ok(fs.existsSync(join(ROOT, 'src', 'commands', n)), `src/commands/${n}`);
  }
});
