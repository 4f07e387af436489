// The hook entry bundle (dist/hook.cjs): `baton hook PROVIDER` with the payload on stdin.
// Loads no schema library, no commander, no SQLite, no settings editor (a test reads the
// bundle's inputs to prove it). process.argv = [node, bin/baton.cjs, 'hook', ...].
// Its loader (boot.ts) calls afterBoot, which writes this bundle's code cache when the event
// reached the store, and ends the process.
import { join } from '../core/path.ts';
import { parseHookArgs } from './args.ts';
import { HOOK_BOOT_SLOT, type HookBoot } from './boot-slot.ts';
import { type CachedRun, type CompiledBundle, runWithCodeCache, saveCodeCache } from './codecache.ts';
import { hookMain } from './main.ts';
import { SHARED_MODULES_SLOT, sharedModules } from './shared-modules.ts';
import type { transcriptAspect } from './transcript.ts';

type CaptureBundle = { transcriptAspect: typeof transcriptAspect; codeCacheWorthy?: () => boolean };
/** The capture bundle, once loaded through its code cache (under the loader only). */
let captureRun: CachedRun<CaptureBundle> | undefined;

// The readers and the capture engine are their own bundle, loaded only by an event that captures:
// through its code cache when the loader ran us, else required. It takes the modules both need
// from this bundle (shared-modules.ts): the table goes first.
const transcript = (): typeof transcriptAspect => {
  const g = globalThis as Record<symbol, unknown>;
  g[SHARED_MODULES_SLOT] ??= sharedModules();
  const file = join(__dirname, 'hook-transcript.cjs');
  const boot = g[HOOK_BOOT_SLOT] as HookBoot | undefined;
  if (!boot) return (require(file) as CaptureBundle).transcriptAspect;
  captureRun ??= runWithCodeCache<CaptureBundle>(file, boot.transcriptSha, boot.home, require, 'capture');
  return captureRun.exports.transcriptAspect;
};

export const ran = hookMain(parseHookArgs(process.argv.slice(3)), transcript);

/** The cache's bit for each kind of event (codecache.ts: which kinds a cache covers). */
const KIND_BITS: Record<string, number> = { start: 1, prompt: 2, 'pre-compact': 4, end: 8, 'turn-end': 16 };

/**
 * Called by the loader once this bundle ran through its code cache (`bundle`): after an event
 * that reached the store (not under BATON_VERIFY=1), writes the cache when there was none or it
 * did not cover this kind of event, and the capture bundle's when a capture went on from its
 * cursor (transcript.ts, codeCacheWorthy). Then the process ends: everything the hook says went
 * out through synchronous writes and nothing is pending, so no teardown of a natural exit
 * (freeing the heap page by page; docs/adr/0018). process.exit(), not the process.reallyExit()
 * it ends in: 'exit' listeners (a preload of the user's, NODE_OPTIONS=--require ...) still run.
 */
export function afterBoot(bundle: CompiledBundle): void {
  if (ran.stored && process.env.BATON_VERIFY !== '1') {
    const kind = (ran.kind !== undefined && Object.hasOwn(KIND_BITS, ran.kind) && KIND_BITS[ran.kind]) || 0;
    saveCodeCache(bundle, kind); // writes only when no cache served or it lacks this kind
    if (captureRun && captureRun.cache !== 'used' && captureRun.exports.codeCacheWorthy?.()) captureRun.save(1);
  }
  process.exit();
}
