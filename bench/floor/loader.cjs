// Runs a CommonJS bundle through a V8 code cache the way baton's hook loader does
// (src/hooks/codecache.ts: the source read as latin1, built already wrapped as Node's loader
// wraps a module, compiled as it is with the cached data, the cache written after the run when
// there was none or V8 rejected it), without its checks.
// Usage: node loader.cjs BUNDLE CACHE_FILE. For bench/floor/prompt-floor.ts, built by
// bench/cases/hook-prompt.ts (buildContractFloor) (bench.md).
'use strict';
const fs = require('node:fs');
const { Script } = require('node:vm');
const [file, cacheFile] = process.argv.slice(2);
const source = fs.readFileSync(file, 'latin1');
let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {}
const script = new Script(source, { filename: file, cachedData });
script.runInThisContext()({}, require, {}, file, __dirname);
if (!cachedData || script.cachedDataRejected) fs.writeFileSync(cacheFile, script.createCachedData());
process.exit();
