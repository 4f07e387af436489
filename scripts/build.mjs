// Bundles the entries: dist/hook.cjs and one per agent, dist/hook.<agent>.cjs (the hot hook
// path: CommonJS, nothing it does not need) and their loader dist/hook-boot.cjs (the V8 code
// cache, docs/adr/0006), dist/cli.cjs (the full command line) and dist/lib.cjs (the store API); last, the web page (web/ → dist/web, Vite).
// CommonJS starts faster than ESM on Node 20.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

/** Members of node: modules that are getters loading more modules on first read. */
const LAZY_MEMBERS = new Set(['promises', 'ReadStream', 'WriteStream', 'FileReadStream', 'FileWriteStream']);

// `import * as fs from 'node:fs'` bundles to a __toESM copy of the whole module, which
// runs every lazy getter (fs.promises, ReadStream ...) and loads their modules: ~10 ms on
// every hook. Rewrite such imports to named imports of just the members the file uses, and each
// use `fs.x` to its import: no object stands in for the module (an object of the members in each
// module cost every hook ~0.9 M instructions to build: docs/adr/0092). A lazy member is read
// through a getter of a small object holding the lazy members alone. The rewrite is textual (a
// type `fs.Stats` becomes the import's type); a use inside a quoted string would be rewritten
// too, so the build refuses one.
const namedNodeImports = {
  name: 'named-node-imports',
  setup(b) {
    b.onLoad({ filter: /\.ts$/, namespace: 'file' }, async (args) => {
      let src = await readFile(args.path, 'utf8');
      const direct = [];
      src = src.replace(/^import \* as (\w+) from '(node:[\w/]+)';$/gm, (_all, ns, mod) => {
        // `fs\n  .readdirSync(...)` (a formatted chain) is a use too.
        const used = [...new Set([...src.matchAll(namespaceUses(ns))].map((m) => m[1]))];
        if (used.length === 0) return '';
        const alias = (n) => `__${ns}_${n}`;
        // A local of the same name would be rewritten as if it were the module.
        const local = new RegExp(`\\b(?:const|let|var|function|class)\\s+${ns}\\b|[(,]\\s*${ns}\\s*[:,)=]`).exec(src);
        if (local) throw new Error(`${args.path}: \`${local[0]}\` declares ${ns}, the name of a node module it imports: rename one`);
        const imports = `import { ${used.map((n) => `${n} as ${alias(n)}`).join(', ')} } from '${mod}';`;
        direct.push(ns);
        const lazy = used.filter((n) => LAZY_MEMBERS.has(n));
        // A lazy getter of the module (fs.promises loads fs/promises, readline, watchers ...:
        // ~18 M instructions, docs/adr/0018) stays a getter, read when first used.
        return lazy.length ? `${imports} const ${ns} = { ${lazy.map((n) => `get ${n}() { return ${alias(n)}; }`).join(', ')} };` : imports;
      });
      for (const ns of direct) {
        src = src.replace(namespaceUses(ns), (use, n, at, whole) => {
          if (LAZY_MEMBERS.has(n)) return use;
          const line = whole.slice(whole.lastIndexOf('\n', at) + 1, at);
          const code = line.replace(/\/\/.*$/, '');
          if (!/^\s*(\/\/|\*|\/\*)/.test(line) && !line.includes('//') && ((code.split("'").length - 1) % 2 === 1 || (code.split('"').length - 1) % 2 === 1)) {
            throw new Error(`${args.path}: \`${use}\` inside a quoted string would be rewritten: write it another way`);
          }
          return `__${ns}_${n}`;
        });
      }
      return { contents: src, loader: 'ts' };
    });
  },
};
/** A use `ns.member` of an imported namespace (not a property of something else named `ns`). */
const namespaceUses = (ns) => new RegExp(`(?<![\\w$.])${ns}\\s*\\.\\s*(\\w+)`, 'g');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  logLevel: 'warning',
  legalComments: 'none',
  // better-sqlite3's JavaScript is bundled (resolving and reading its 14 modules one by one cost
  // every `session list` ~10 ms); its compiled addon is found by path (src/index/db.ts, addonPath),
  // so `bindings`, its fallback search, stays outside.
  external: ['bindings'],
  plugins: [namedNodeImports],
  define: { BATON_VERSION: JSON.stringify(JSON.parse(await readFile('package.json', 'utf8')).version) },
};

const hookBuild = await build({ ...common, entryPoints: ['src/hooks/entry.ts'], outfile: 'dist/hook.cjs', minifyWhitespace: true, minifySyntax: true, metafile: true });
// The hooks' transcript aspect (the nine readers and the capture engine), required by dist/hook.cjs
// only for an event that captures (turn end, pre-compact, end, start): a prompt never loads it.
// The modules both bundles need are not copied into it: each is a look-up in the table dist/hook.cjs
// hands over before loading it (src/hooks/shared-modules.ts, docs/adr/0072), so a capture process
// compiles one copy of the redactor, the hash and the file helpers.
const SHARED_TABLE = 'src/hooks/shared-modules.ts';
const shared = new Set([...(await readFile(SHARED_TABLE, 'utf8')).matchAll(/^ {4}'(src\/[\w/.-]+\.ts)': \{/gm)].map((m) => m[1]));
if (shared.size === 0) throw new Error(`${SHARED_TABLE}: no shared module found (the build reads its table's keys)`);
// Each entry of the table lists its module's every export (the capture bundle's code takes them by name).
{
  const table = await build({ ...common, entryPoints: [SHARED_TABLE], write: false, outfile: 'dist/shared-modules.cjs', logLevel: 'silent' });
  const m = { exports: {} };
  new Function('module', 'exports', 'require', table.outputFiles[0].text)(m, m.exports, createRequire(resolve(SHARED_TABLE)));
  const listed = m.exports.sharedModules();
  for (const key of shared) {
    const own = await build({ entryPoints: [key], bundle: false, write: false, metafile: true, format: 'esm', outdir: 'dist', logLevel: 'silent' });
    const exports = Object.values(own.metafile.outputs)[0].exports.sort();
    const missing = exports.filter((e) => !Object.hasOwn(listed[key], e));
    if (missing.length) throw new Error(`${SHARED_TABLE}: the entry of ${key} lacks ${missing.join(', ')}`);
  }
}
const sharedFromHook = {
  name: 'shared-from-hook',
  setup(b) {
    b.onResolve({ filter: /\.ts$/ }, (a) => {
      if (a.kind !== 'import-statement' || !a.importer) return undefined;
      const key = relative(process.cwd(), resolve(dirname(a.importer), a.path)).split(sep).join('/');
      return shared.has(key) ? { path: key, namespace: 'baton-shared' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'baton-shared' }, (a) => ({
      contents: `const t = globalThis[Symbol.for('baton.hook-modules')]; if (!t) throw new Error('dist/hook-transcript.cjs runs inside dist/hook.cjs (it takes ${a.path} from it)'); module.exports = t[${JSON.stringify(a.path)}];`,
      loader: 'js',
    }));
  },
};
const captureBuild = await build({ ...common, entryPoints: ['src/hooks/transcript.ts'], outfile: 'dist/hook-transcript.cjs', minifyWhitespace: true, minifySyntax: true, metafile: true, plugins: [...common.plugins, sharedFromHook] });
{
  const copied = Object.keys(captureBuild.metafile.inputs).filter((i) => i.startsWith('src/') && Object.hasOwn(hookBuild.metafile.inputs, i) && i !== SHARED_TABLE);
  if (copied.length) throw new Error(`dist/hook-transcript.cjs would carry copies of modules dist/hook.cjs holds: ${copied.join(', ')}; add them to ${SHARED_TABLE}`);
}
// One byte a character: a bundle with a single non-ASCII character becomes a two-byte string in
// V8 (decoded, hashed and held at twice the size on every hook; docs/adr/0018). esbuild escapes
// strings but not regular expression literals: write such characters as \u escapes.
async function assertAscii(files) {
  for (const file of files) {
    const text = await readFile(file, 'latin1');
    const at = text.search(/[^\x00-\x7f]/);
    if (at >= 0) throw new Error(`${file} must be ASCII (the loader reads it as latin1): non-ASCII byte at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 20))}`);
  }
}
await assertAscii(['dist/hook.cjs', 'dist/hook-transcript.cjs']);
// Each bundled module that imports node:fs gets its own `var import_node_fsN=require("node:fs")`
// (25 in dist/hook.cjs, 12 of node:path): every one a call through Module._load on every hook
// process, counted: 117.90 → 117.52 M instructions a prompt (docs/bench.md, 2026-12-05). The hook's
// bundles take each such builtin once, at their top, and every module reads that one binding
// (the same object require() returns, so nothing changes but the calls).
async function shareBuiltinRequires(file) {
  let text = await readFile(file, 'latin1');
  for (const mod of ['fs', 'path']) {
    const call = `=require("node:${mod}")`;
    const name = `__node_${mod}`;
    if (text.split(call).length < 3) continue;
    if (text.includes(name)) throw new Error(`${file}: ${name} is taken`);
    text = text.split(call).join(`=${name}`);
    if (!text.startsWith('"use strict";')) throw new Error(`${file}: no "use strict" prologue to put the shared require after`);
    text = `"use strict";var ${name}=require("node:${mod}");${text.slice('"use strict";'.length)}`;
  }
  await writeFile(file, text, 'latin1');
}
await shareBuiltinRequires('dist/hook.cjs');
await shareBuiltinRequires('dist/hook-transcript.cjs');
// The hook bundles are written already wrapped as Node's loader wraps a CommonJS module (the
// head and tail are src/hooks/codecache.ts's CJS_HEAD and CJS_TAIL; a test holds them equal):
// the hook's loader compiles the file's text as it is, where wrapping it at run time made V8
// copy ~130 KB more (~40 page faults a hook, docs/bench.md). Not loadable by require(): only
// dist/hook-boot.cjs runs them. dist/hook-transcript.cjs stays a plain module.
async function prewrap(file) {
  const text = await readFile(file, 'latin1');
  await writeFile(file, `(function (exports, require, module, __filename, __dirname) { ${text}\n})`, 'latin1');
}
await prewrap('dist/hook.cjs');
// One hook bundle for each agent, dist/hook.<agent>.cjs, whose registry holds that agent's adapter
// alone (src/providers/adapters.ts replaced): the loader picks it by the command line's agent.
// The other eight adapters cost each hook ~0.8 M instructions to load (docs/adr/0092).
// dist/hook.cjs, with all nine, serves any other name (and says which ones baton knows).
const ADAPTERS_MODULE = 'src/providers/adapters.ts';
const agentModules = [...(await readFile(ADAPTERS_MODULE, 'utf8')).matchAll(/^import \{ ([\w, ]+) \} from '(\.\/[\w-]+\.ts)';$/gm)].flatMap((m) =>
  m[1].split(', ').map((name) => ({ name, from: m[2] })),
);
const hookBundles = {};
for (const { name, from } of agentModules) {
  const outfile = `dist/hook.${name}.cjs`;
  const oneAgent = {
    name: 'one-agent',
    setup(b) {
      b.onLoad({ filter: /src[\\/]providers[\\/]adapters\.ts$/ }, (a) => ({
        contents: `import { ${name} } from '${from}'; export const ADAPTERS = [${name}];`,
        resolveDir: dirname(a.path),
        loader: 'ts',
      }));
    },
  };
  // Identifiers minified too (not in dist/hook.cjs, which serves only names baton refuses and
  // stays readable): ~25 % less source to read, copy and keep, ~40 page faults a hook (docs/bench.md).
  await build({ ...common, entryPoints: ['src/hooks/entry.ts'], outfile, minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: true, plugins: [oneAgent, ...common.plugins] });
  await assertAscii([outfile]);
  await shareBuiltinRequires(outfile);
  await prewrap(outfile);
  hookBundles[name] = createHash('sha256').update(await readFile(outfile)).digest('hex');
}
if (Object.keys(hookBundles).length !== 9) throw new Error(`${ADAPTERS_MODULE}: ${Object.keys(hookBundles).length} agents found, 9 expected (the build reads its import lines)`);
// The hook's loader: runs the agent's bundle (or dist/hook.cjs) through the V8 code cache named by the bundle's hash.
const hookSha = createHash('sha256').update(await readFile('dist/hook.cjs')).digest('hex');
const transcriptSha = createHash('sha256').update(await readFile('dist/hook-transcript.cjs')).digest('hex');
await build({
  ...common,
  entryPoints: ['src/hooks/boot.ts'],
  outfile: 'dist/hook-boot.cjs',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { ...common.define, BATON_HOOK_SHA: JSON.stringify(hookSha), BATON_HOOK_BUNDLES: JSON.stringify(hookBundles), BATON_TRANSCRIPT_SHA: JSON.stringify(transcriptSha) },
});
await build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.cjs', minifyWhitespace: true, external: [...common.external, './team.cjs'] });
// `team` and `sync` alone (dist/cli.cjs requires it for them): the replicator with `postgres`, kept out of every other bundle.
await build({ ...common, entryPoints: ['src/team/entry.ts'], outfile: 'dist/team.cjs', loader: { '.sql': 'text' } });
await build({ ...common, entryPoints: ['src/lib.ts'], outfile: 'dist/lib.cjs' });
// `session list` alone (bin/baton.cjs routes it here); falls back to the sibling dist/cli.cjs.
await build({ ...common, entryPoints: ['src/cli/list-entry.ts'], outfile: 'dist/list.cjs', minifyWhitespace: true, minifySyntax: true, external: [...common.external, './cli.cjs'] });
// `search` alone (bin/baton.cjs routes it here), the same way; falls back to the sibling dist/cli.cjs.
await build({ ...common, entryPoints: ['src/cli/search-entry.ts'], outfile: 'dist/search.cjs', minifyWhitespace: true, minifySyntax: true, external: [...common.external, './cli.cjs'] });
// The loader of the command line's bundles: runs dist/list.cjs, dist/search.cjs and dist/cli.cjs through V8's code cache (src/cli/lean-boot.ts).
await assertAscii(['dist/list.cjs', 'dist/search.cjs', 'dist/cli.cjs']);
const cliSha = createHash('sha256').update(await readFile('dist/cli.cjs')).digest('hex');
const listSha = createHash('sha256').update(await readFile('dist/list.cjs')).digest('hex');
const searchSha = createHash('sha256').update(await readFile('dist/search.cjs')).digest('hex');
await build({
  ...common,
  entryPoints: ['src/cli/lean-boot.ts'],
  outfile: 'dist/lean-boot.cjs',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { ...common.define, BATON_LIST_SHA: JSON.stringify(listSha), BATON_SEARCH_SHA: JSON.stringify(searchSha), BATON_CLI_SHA: JSON.stringify(cliSha) },
});
// `baton serve` alone (bin/baton.cjs routes it here): the app server with ws and json-rpc-2.0, kept out of dist/cli.cjs;
// it requires dist/team.cjs only when its home has joined a team (the replicator) or a client resumes or releases a shared session.
await build({ ...common, entryPoints: ['src/server/entry.ts'], outfile: 'dist/serve.cjs', external: [...common.external, './team.cjs'] });
// `baton mcp` alone (bin/baton.cjs routes it here): the MCP server with the SDK (~100 ms to load), kept out of every other bundle.
// It requires dist/team.cjs only when context_append's resume takes a team's shared session.
await build({ ...common, entryPoints: ['src/mcp/entry.ts'], outfile: 'dist/mcp.cjs', minifyWhitespace: true, minifySyntax: true, external: [...common.external, './team.cjs'] });
// `baton pick` alone (bin/baton.cjs routes it here): the terminal picker with Ink and React (docs/adr/0063),
// kept out of every other bundle. ESM, because Ink and its layout engine (yoga-layout's WebAssembly)
// use top-level await; `require`, `__filename` and `__dirname` are given to the CommonJS modules bundled
// in (React, better-sqlite3). Ink's CI detection is replaced by false: the picker refuses to run
// without a terminal, and with one it must draw (Ink under CI=true draws only the last frame, on exit).
await build({
  ...common,
  entryPoints: ['src/cli/pick-entry.ts'],
  outfile: 'dist/pick.mjs',
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { ...common.define, 'process.env.NODE_ENV': '"production"' },
  banner: {
    js: "import { createRequire as __batonRequire } from 'node:module'; import { fileURLToPath as __batonPath } from 'node:url'; import { dirname as __batonDir } from 'node:path'; const require = __batonRequire(import.meta.url); const __filename = __batonPath(import.meta.url); const __dirname = __batonDir(__filename);",
  },
  // Not named-node-imports: in ESM a named import of a member the module lacks (a type such as
  // fs.BigIntStats) is a link error, and a namespace import there runs no lazy getter.
  plugins: [
    {
      name: 'ink-not-in-ci',
      setup(b) {
        b.onResolve({ filter: /^is-in-ci$/ }, () => ({ path: 'is-in-ci', namespace: 'baton-pick' }));
        // Ink's React DevTools hook (DEV=true only) would import react-devtools-core (not installed) and ws
        // (which loads http, tls, zlib on every start): left out.
        b.onResolve({ filter: /^\.\/devtools(-window-polyfill)?\.js$/ }, (a) => (a.importer.includes('/ink/') ? { path: 'devtools', namespace: 'baton-pick' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'baton-pick' }, (a) => ({ contents: a.path === 'is-in-ci' ? 'export default false;' : 'export {};', loader: 'js' }));
        // yoga-layout's Emscripten loader decodes its inlined WebAssembly itself (~80 ms of every
        // start); handed the bytes through its instantiateWasm hook it takes ~10 ms. The base64
        // moves out of the loader's source into an export, decoded with Buffer.
        b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (a) => {
          const src = await readFile(a.path, 'utf8');
          const m = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(src);
          if (!m) throw new Error('yoga-layout: no inlined WebAssembly found (a new version?): see docs/adr/0063');
          return { contents: `${src.replace(m[1], '')}\nexport const YOGA_WASM_BASE64 = ${JSON.stringify(m[1])};\n`, loader: 'js' };
        });
        b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/ }, () => ({
          contents: [
            "import loadYoga, { YOGA_WASM_BASE64 } from '../binaries/yoga-wasm-base64-esm.js';",
            "import wrapAssembly from './wrapAssembly.js';",
            "const bytes = Buffer.from(YOGA_WASM_BASE64, 'base64');",
            'const Yoga = wrapAssembly(await loadYoga({ instantiateWasm(imports, done) { WebAssembly.instantiate(bytes, imports).then((r) => done(r.instance)); return {}; } }));',
            'export default Yoga;',
            "export * from './generated/YGEnums.js';",
          ].join('\n'),
          loader: 'js',
        }));
      },
    },
  ],
});
// `baton/client` (package.json exports): the typed app-server client, ESM and CommonJS, with its declarations.
await build({ ...common, entryPoints: ['src/client/index.ts'], outfile: 'dist/client.cjs', external: [] });
await build({ ...common, entryPoints: ['src/client/index.ts'], outfile: 'dist/client.mjs', format: 'esm', external: [] });
{
  const { spawnSync } = await import('node:child_process');
  const { readdirSync, writeFileSync } = await import('node:fs');
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', 'src/client/index.ts', '--declaration', '--emitDeclarationOnly', '--allowImportingTsExtensions', '--outDir', 'dist/client', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', '--types', 'node'], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  // Declarations import their siblings by .js (what every TypeScript resolution mode maps to the .d.ts).
  for (const f of readdirSync('dist/client')) {
    const p = `dist/client/${f}`;
    writeFileSync(p, (await readFile(p, 'utf8')).replace(/from '(\.\/[\w.-]+)\.ts'/g, "from '$1.js'"));
  }
}
// The web page (docs/web.md): Vite + React into dist/web, served by `baton serve` at `/`.
{
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: 'web/vite.config.ts', logLevel: 'warn' });
}
