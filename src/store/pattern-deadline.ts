// A user's redaction pattern (`session redact --pattern RE`) run with a deadline. A regular
// expression of the user's may backtrack without bound (`(a+)+$` on 41 characters runs for
// hours); V8 cannot interrupt a match on its own thread, so the pattern runs over the
// session's strings in a worker that is terminated when the deadline passes.
// Invariant: the answer is the seqs whose strings the pattern matches, each string also
// replaced once the way every presentation will (presentEvent), all within the deadline;
// else REDACT_TIMEOUT and the caller writes nothing.
import { Worker } from 'node:worker_threads';
import { fail } from '../core/errors.ts';
import { formatDuration } from '../core/duration.ts';

export interface PatternTarget {
  seq: number;
  strings: string[];
}

/** The worker: plain JavaScript, evaluated (no file of its own in the bundles). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const test = new RegExp(workerData.pattern);
const all = new RegExp(workerData.pattern, 'g');
const seqs = [];
for (const t of workerData.targets) {
  if (!t.strings.some((s) => test.test(s))) continue;
  for (const s of t.strings) s.replace(all, '');
  seqs.push(t.seq);
}
parentPort.postMessage(seqs);
`;

/** The seqs of the targets the pattern matches; REDACT_TIMEOUT when that takes longer than `deadlineMs`. */
export function matchWithDeadline(pattern: string, targets: PatternTarget[], deadlineMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { pattern, targets } });
    // A match stuck in backtracking must not keep the process alive once the answer is given.
    worker.unref();
    const timer = setTimeout(() => {
      void worker.terminate();
      try {
        fail('REDACT_TIMEOUT', `the pattern did not finish within ${formatDuration(deadlineMs)} over this session's events (a pattern such as (a+)+$ backtracks without bound); nothing was written — simplify it (no nested quantifiers) or raise --timeout`, {
          pattern,
          timeout_ms: deadlineMs,
        });
      } catch (e) {
        reject(e);
      }
    }, deadlineMs);
    worker.once('message', (seqs: number[]) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(seqs);
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
