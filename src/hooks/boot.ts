// The hook's loader (dist/hook-boot.cjs; bin/baton.cjs requires it for `baton hook ...`): runs
// the agent's hook bundle (dist/hook.<agent>.cjs, else dist/hook.cjs) through V8's code cache
// kept in the store's home (codecache.ts,
// docs/adr/0006). This file has no cache of its own: every hook process parses it and compiles
// each function it calls, so it is straight-line code calling as few functions as it can, and
// only the reading side is here (docs/adr/0080). The bundle decides and writes its cache itself after
// the event (entry.ts, afterBoot): only after an event that reached the store, so a refused
// payload or a BATON_VERIFY=1 run leaves the disk as it was. Anything wrong with the cache
// means a plain compile; an error of the hook itself surfaces exactly as with require().
import { resolveHome } from '../store/home.ts';
import { HOOK_BOOT_SLOT, type HookBoot } from './boot-slot.ts';
import { type CompiledBundle, compileWithCodeCache } from './codecache.ts';

/** The sha-256 of dist/hook.cjs, of each agent's dist/hook.<agent>.cjs and of dist/hook-transcript.cjs, written in by scripts/build.mjs. */
declare const BATON_HOOK_SHA: string;
declare const BATON_HOOK_BUNDLES: Record<string, string>;
declare const BATON_TRANSCRIPT_SHA: string;

// --home as parseHookArgs (args.ts) reads it: the last one wins, --aspects takes the next word.
const argv = process.argv;
let flag: string | undefined;
for (let i = 3; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--aspects') i++;
  else if (a === '--home') flag = argv[++i];
  else if (a.startsWith('--home=')) flag = a.slice(7);
}
// resolveHome(flag), whose path.resolve normalises one character at a time: skipped for a home
// named by an absolute path that is already normal (what `baton install` writes; the test is
// core/path.ts's, inline here: in that file's join a function of its own cost ~30 calls a prompt).
const named = flag || process.env.BATON_HOME;
const home =
  named && process.platform !== 'win32' && named.charCodeAt(0) === 47 && !named.includes('//') && !named.includes('/./') && !named.includes('/../') && !named.endsWith('/') && !named.endsWith('/.') && !named.endsWith('/..')
    ? named
    : resolveHome(flag);
// What the bundle needs to run the capture bundle through that one's cache too.
(globalThis as Record<symbol, unknown>)[HOOK_BOOT_SLOT] = { home, transcriptSha: BATON_TRANSCRIPT_SHA } satisfies HookBoot;
// The agent's own bundle (docs/adr/0092), each with its own cache; dist/hook.cjs for a name baton
// does not know (it says which it knows) or an agent not in the first place after `hook`.
const agent = argv[3];
// Both are built already wrapped as Node's loader would wrap them (codecache.ts, CJS_HEAD).
const compiled = Object.hasOwn(BATON_HOOK_BUNDLES, agent)
  ? compileWithCodeCache(`${__dirname}/hook.${agent}.cjs`, BATON_HOOK_BUNDLES[agent], home, `hook.${agent}`, true)
  : compileWithCodeCache(`${__dirname}/hook.cjs`, BATON_HOOK_SHA, home, 'hook', true);
const mod = { exports: {} as { afterBoot?: (c: CompiledBundle) => void }, filename: compiled.file, id: compiled.file, loaded: false };
compiled.script.runInThisContext()(mod.exports, require, mod, compiled.file, __dirname);
mod.loaded = true;
mod.exports.afterBoot?.(compiled);
