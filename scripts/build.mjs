// Bundles the two entries: dist/hook.cjs (the hot hook path: CommonJS, nothing it does
// not need) and dist/cli.cjs (the full command line). CommonJS starts faster than ESM on Node 20.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  logLevel: 'warning',
  legalComments: 'none',
};

await build({ ...common, entryPoints: ['src/hooks/entry.ts'], outfile: 'dist/hook.cjs', external: ['better-sqlite3'] });
await build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.cjs', external: ['better-sqlite3'] });
await build({ ...common, entryPoints: ['src/lib.ts'], outfile: 'dist/lib.cjs', external: ['better-sqlite3'] });
