// The hook entry bundle (dist/hook.cjs): `baton hook PROVIDER` with the payload on stdin.
// Loads no schema library, no commander, no SQLite, no settings editor (a test reads the
// bundle's inputs to prove it). process.argv = [node, bin/baton.cjs, 'hook', ...].
// Its loader (boot.ts) reads `ran` to know whether the event reached the store.
import { join } from 'node:path';
import { parseHookArgs } from './args.ts';
import { hookMain } from './main.ts';
import { SHARED_MODULES_SLOT, sharedModules } from './shared-modules.ts';
import type { transcriptAspect } from './transcript.ts';

// The readers and the capture engine are their own bundle, loaded only by an event that captures:
// through the loader's code cache (boot.ts) when it ran us, else required. It takes the modules
// both need from this bundle (shared-modules.ts): the table goes first.
const transcript = (): typeof transcriptAspect => {
  (globalThis as Record<symbol, unknown>)[SHARED_MODULES_SLOT] ??= sharedModules();
  const viaCache = (globalThis as Record<symbol, unknown>)[Symbol.for('baton.hook-transcript')] as (() => { transcriptAspect: typeof transcriptAspect }) | undefined;
  return (viaCache ? viaCache() : require(join(__dirname, 'hook-transcript.cjs'))).transcriptAspect;
};

export const ran = hookMain(parseHookArgs(process.argv.slice(3)), transcript);
