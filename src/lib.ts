// The library entry (dist/lib.cjs): the store API for programs and test children that
// need it without the command line.
import { createHash } from 'node:crypto';
import { adoptNativeSha256 } from './core/hash.ts';

adoptNativeSha256(createHash);

export { FsStore, cliWriter, type Writer } from './store/store.ts';
export { scanLog } from './store/log.ts';
export { encodeEvent, checkLine } from './core/events.ts';
export { redactText, redactValue } from './core/redact.ts';
export { describeWorkspace } from './store/workspace.ts';
