// Blocking for a while without a busy loop, for the synchronous paths (a full pipe, a held
// mutex, an empty non-blocking stdin): Atomics.wait on a word nobody notifies.

/** Made on first use: a module-level SharedArrayBuffer would be one more allocation in every process that loads this. */
let sleeper: Int32Array | undefined;

/** Blocks the thread for `ms` milliseconds. */
export function sleepSync(ms: number): void {
  Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, ms);
}
