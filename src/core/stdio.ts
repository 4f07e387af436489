// Writing to the process's stdout and stderr without process.stdout / process.stderr: their
// getters build stream objects and load net, stream and tty (~5 ms a process), which a hook
// (every prompt) and a `--json` command (a resume picker's `session list --json`) print one
// document with and never need. The write is synchronous, as Node's own stdio writes to files,
// pipes and terminals are on Linux, so mixing the two keeps the order.
import * as fs from 'node:fs';
import { sleepSync } from './sleep.ts';

/** Writes all of text to fd 1 or 2: a full pipe (EAGAIN) is waited for, a closed one (EPIPE) ends the write. */
export function writeFd(fd: 1 | 2, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  for (let spins = 0; off < buf.length; ) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN' && spins++ < 5000) {
        sleepSync(1);
        continue;
      }
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') return;
      throw e;
    }
  }
}
