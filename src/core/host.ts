// The host's name and node:os without loading node:os at start. Loading that one module costs
// a hook process ~1.9 M instructions (~0.5 ms), more than the rest of its mutex (docs/adr/0018):
// on Linux the host name is read from /proc/sys/kernel/hostname, which holds the same
// uname(2) node name os.hostname() returns; node:os is loaded only where nothing else will do.
import { closeSync, openSync, readSync } from 'node:fs';
import type * as os from 'node:os';

let osModule: typeof os | undefined;

/** node:os, loaded on first use (process.getBuiltinModule: Node ≥ 20.16, inside `engines`). */
export function nodeOs(): typeof os {
  osModule ??= process.getBuiltinModule('node:os');
  return osModule;
}

let host: string | undefined;

/** os.hostname(), read once per process. */
export function hostName(): string {
  host ??= procHostname() ?? nodeOs().hostname();
  return host;
}

/** The kernel's host name on Linux (one line), or undefined where /proc does not give one. */
function procHostname(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  let fd: number | undefined;
  try {
    fd = openSync('/proc/sys/kernel/hostname', 'r');
    const buf = Buffer.allocUnsafe(256);
    const n = readSync(fd, buf, 0, buf.length, null);
    const name = buf.toString('utf8', 0, n).replace(/\n$/, '');
    return name.length > 0 && !name.includes('\n') ? name : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
