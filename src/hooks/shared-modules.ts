// The modules dist/hook-transcript.cjs (the capture bundle) takes from dist/hook.cjs instead of
// carrying copies (docs/adr/0072, "One copy of the shared modules"): the redactor, the hash, the
// store's file helpers, the log's names, the cursor file, the Gemini adapter's context stripper.
// scripts/build.mjs reads the keys below and builds the capture bundle with each of these files
// replaced by a look-up in this table, which dist/hook.cjs hands over through a globalThis slot
// (entry.ts) before it loads the capture bundle; the build fails when the two bundles still share
// a module this table lacks, or when a module's entry does not list every export it has.
// The table is made when a capture asks for it, of named imports: `import * as` would make every
// prompt hook build seven namespace objects of getters at load (~0.6 M instructions; docs/adr/0079).
// Keys are paths from the repository's root, one per line.
import { adoptNativeSha256, contentDigest, contentDigestJs, pureSha256Hex, sha256, sha256Hex, sha256Js } from '../core/hash.ts';
import { join, resolve } from '../core/path.ts';
import { CHUNK_CHARS, LEAD_REACH, PEM_MAX_CHARS, REDACTED, RULES, keyInProse, newAhead, redactDefault, redactText, redactValue, userPattern } from '../core/redact.ts';
import { ISO_SECONDS_RE, happenedAt, isoMillis, isoMillisOf, isoSeconds, systemClock, touchedAfter } from '../core/time.ts';
import { stripHookContext } from '../providers/gemini-context.ts';
import {
  DIR_MODE,
  FILE_MODE,
  STALE_TEMP_MS,
  appendDurable,
  ensureDir,
  ensureSubdir,
  fileKey,
  fsyncDir,
  linkRefused,
  readFdBytes,
  readFileBytes,
  readFileOrNull,
  refuseLink,
  sweepFolder,
  sweepStaleTemps,
  uniqueTempName,
  writeFileAtomic,
  writeInPlace,
  parseSelfChecked,
  selfCheckedText,
} from '../store/fsutil.ts';
import { LOG_FILE, appendLocked, appendVerifiedLines, foldFacts, forkAside, quarantineTail, readAllEvents, readFirstEvent, scanLog, verifiedTail } from '../store/log.ts';
import { TRANSCRIPTS_DIR, cursorPath, transcriptMayHaveNew } from '../transcripts/cursor-file.ts';

/** The globalThis slot the table travels in (a Symbol.for: one per process, whoever asks). */
export const SHARED_MODULES_SLOT = Symbol.for('baton.hook-modules');

/** Each shared module's exports, by the module's path (every export: the build checks). */
export function sharedModules(): Record<string, Record<string, unknown>> {
  return {
    'src/core/hash.ts': { adoptNativeSha256, contentDigest, contentDigestJs, pureSha256Hex, sha256, sha256Hex, sha256Js },
    'src/core/path.ts': { join, resolve },
    'src/core/redact.ts': { CHUNK_CHARS, LEAD_REACH, PEM_MAX_CHARS, REDACTED, RULES, keyInProse, newAhead, redactDefault, redactText, redactValue, userPattern },
    'src/core/time.ts': { ISO_SECONDS_RE, happenedAt, isoMillis, isoMillisOf, isoSeconds, systemClock, touchedAfter },
    'src/providers/gemini-context.ts': { stripHookContext },
    'src/store/fsutil.ts': {
      DIR_MODE,
      FILE_MODE,
      STALE_TEMP_MS,
      appendDurable,
      ensureDir,
      ensureSubdir,
      fileKey,
      fsyncDir,
      linkRefused,
      readFdBytes,
      readFileBytes,
      readFileOrNull,
      parseSelfChecked,
      selfCheckedText,
      refuseLink,
      sweepFolder,
      sweepStaleTemps,
      uniqueTempName,
      writeFileAtomic,
      writeInPlace,
    },
    'src/store/log.ts': { LOG_FILE, appendLocked, appendVerifiedLines, foldFacts, forkAside, quarantineTail, readAllEvents, readFirstEvent, scanLog, verifiedTail },
    'src/transcripts/cursor-file.ts': { TRANSCRIPTS_DIR, cursorPath, transcriptMayHaveNew },
  };
}
