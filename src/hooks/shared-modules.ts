// The modules dist/hook-transcript.cjs (the capture bundle) takes from dist/hook.cjs instead of
// carrying copies (docs/adr/0072, "One copy of the shared modules"): the redactor, the hash, the
// store's file helpers, the log's names, the cursor file, the Gemini adapter's context stripper.
// scripts/build.mjs reads the keys below and builds the capture bundle with each of these files
// replaced by a look-up in this table, which dist/hook.cjs hands over through a globalThis slot
// (entry.ts) before it loads the capture bundle; the build fails when the two bundles still share
// a module this table lacks. Keys are paths from the repository's root, one per line.
import * as hash from '../core/hash.ts';
import * as redact from '../core/redact.ts';
import * as time from '../core/time.ts';
import * as geminiProvider from '../providers/gemini.ts';
import * as fsutil from '../store/fsutil.ts';
import * as log from '../store/log.ts';
import * as cursorFile from '../transcripts/cursor-file.ts';

/** The globalThis slot the table travels in (a Symbol.for: one per process, whoever asks). */
export const SHARED_MODULES_SLOT = Symbol.for('baton.hook-modules');

export const sharedModules: Record<string, unknown> = {
  'src/core/hash.ts': hash,
  'src/core/redact.ts': redact,
  'src/core/time.ts': time,
  'src/providers/gemini.ts': geminiProvider,
  'src/store/fsutil.ts': fsutil,
  'src/store/log.ts': log,
  'src/transcripts/cursor-file.ts': cursorFile,
};
