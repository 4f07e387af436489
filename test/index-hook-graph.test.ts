// The hook path never opens the index (index.md): neither the hook entry nor the pointer
// or store modules it uses pull src/index or better-sqlite3 into their module graph.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { ROOT } from './helpers.ts';

async function inputsOf(entry: string): Promise<string[]> {
  const r = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    metafile: true,
    logLevel: 'silent',
    external: ['better-sqlite3', './serve.cjs', './mcp.cjs', './team.cjs'],
    absWorkingDir: ROOT,
  });
  const imports = Object.values(r.metafile.inputs).flatMap((i) => i.imports.map((x) => x.path));
  return [...Object.keys(r.metafile.inputs), ...imports];
}

test('the hook entry, the pointer modules and the store keep src/index and better-sqlite3 out of their module graph', async () => {
  const entries = ['src/hooks/entry.ts', 'src/store/store.ts', ...fs.readdirSync(join(ROOT, 'src/pointer')).filter((f) => f.endsWith('.ts')).map((f) => `src/pointer/${f}`)];
  for (const e of entries) {
    const graph = await inputsOf(e);
    assert.deepEqual(graph.filter((p) => p.startsWith('src/index/') || p.includes('better-sqlite3')), [], e);
  }
});

test('the CLI bundle does reach the index (the check above is not vacuous)', async () => {
  const graph = await inputsOf('src/cli/main.ts');
  assert.ok(graph.includes('src/index/db.ts'));
  assert.ok(graph.includes('better-sqlite3'));
});
