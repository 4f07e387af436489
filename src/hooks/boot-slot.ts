// What the hook's loader (boot.ts) hands the hook bundle (entry.ts) before running it: where
// the capture bundle's code cache is kept and that bundle's build hash. Types and the slot only.

/** The globalThis slot (a Symbol.for: one per process, whoever asks). */
export const HOOK_BOOT_SLOT = Symbol.for('baton.hook-boot');

export interface HookBoot {
  /** The store's home (its cache/ folder holds the caches). */
  home: string;
  /** The sha-256 of dist/hook-transcript.cjs, written into the loader by scripts/build.mjs. */
  transcriptSha: string;
}
