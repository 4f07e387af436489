// The hook's loader (dist/hook-boot.cjs; bin/baton.cjs requires it for `baton hook ...`): runs
// dist/hook.cjs through V8's code cache kept in the store's home (codecache.ts,
// docs/adr/0006). The cache is written only after an event that reached the store: a refused
// payload or a BATON_VERIFY=1 run leaves the disk as it was. Anything wrong with the cache
// means a plain compile; an error of the hook itself surfaces exactly as with require().
import { join } from 'node:path';
import { resolveHome } from '../store/home.ts';
import { parseHookArgs } from './args.ts';
import { type CachedRun, runWithCodeCache } from './codecache.ts';

/** The sha-256 of dist/hook.cjs and of dist/hook-transcript.cjs, written in by scripts/build.mjs. */
declare const BATON_HOOK_SHA: string;
declare const BATON_TRANSCRIPT_SHA: string;

/** The cache's bit for each kind of event (codecache.ts: which kinds a cache covers). */
const KIND_BITS: Record<string, number> = { start: 1, prompt: 2, 'pre-compact': 4, end: 8, 'turn-end': 16 };

const home = resolveHome(parseHookArgs(process.argv.slice(3)).home);
// The transcript aspect's bundle, when an event needs it, goes through its own code cache too
// (dist/hook.cjs asks for it by this symbol; without the loader it requires the file).
let transcriptRun: CachedRun<unknown> | undefined;
(globalThis as Record<symbol, unknown>)[Symbol.for('baton.hook-transcript')] = (): unknown => {
  transcriptRun ??= runWithCodeCache(join(__dirname, 'hook-transcript.cjs'), BATON_TRANSCRIPT_SHA, home, require, 'capture');
  return transcriptRun.exports;
};
const run = runWithCodeCache<{ ran?: { stored?: boolean; kind?: string } }>(join(__dirname, 'hook.cjs'), BATON_HOOK_SHA, home, require);
const ran = run.exports.ran;
if (ran?.stored && process.env.BATON_VERIFY !== '1') {
  const kind = (ran.kind !== undefined && Object.hasOwn(KIND_BITS, ran.kind) && KIND_BITS[ran.kind]) || 0;
  // save() decides the same; asked here first, it is not even compiled when the cache serves.
  if (run.cache !== 'used' || (run.covered & kind) !== kind) run.save(kind);
  // The capture bundle's cache is made from a capture that found its cursor (transcript.ts, codeCacheWorthy).
  if (transcriptRun && transcriptRun.cache !== 'used' && (transcriptRun.exports as { codeCacheWorthy?: () => boolean }).codeCacheWorthy?.()) transcriptRun.save(1);
}
// Everything the hook says went out through synchronous writes and nothing is pending: the
// process ends here, without the teardown of a natural exit (freeing the heap page by page;
// docs/adr/0018). process.exit(), not the process.reallyExit() it ends in: 'exit' listeners
// (a preload of the user's, NODE_OPTIONS=--require ...) still run.
if (ran) process.exit();
