// `baton pointer report` and `--recall` (pointer.md): read-only diagnostics over state.json
// and journal.jsonl. Pure builders and renderers; the CLI reads the files and prints.
// The journal stores metadata only, so a recall returns the text only for the revision
// that is still the current state's.
import { fail } from '../core/errors.ts';
import type { JournalRead } from './journal.ts';
import { pointerAgeSeconds } from './rules.ts';
import type { Observed } from './state.ts';

export const MAX_REPORT_BYTES = 10000;
export const MAX_RECALL_BYTES = 4096;
export const REPORT_RECORDS = 10;
export const RECALL_TEXT_UNAVAILABLE = 'RECALL_TEXT_UNAVAILABLE';
export const METADATA_ONLY = 'journal_stores_metadata_only';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Revisions missing between consecutive journal records (file order; a rotation's cut is not counted). */
export function revisionGaps(revisions: readonly number[]): number {
  let gaps = 0;
  for (let i = 1; i < revisions.length; i++) {
    const d = revisions[i] - revisions[i - 1];
    if (d > 1) gaps += d - 1;
  }
  return gaps;
}

export interface Report {
  session_id: string;
  status: string;
  generation: string;
  revision: number;
  age_seconds: number;
  journal_depth: number;
  revision_gaps: number;
  invalid_lines: number;
  /** The last ten records, oldest first, as stored. */
  records: Record<string, unknown>[];
}

export function buildReport(o: Observed, j: JournalRead, now: Date): { report: Report; lines: string[] } {
  const last = j.records.slice(-REPORT_RECORDS);
  const report: Report = {
    session_id: o.session_id,
    status: o.status ?? o.generation,
    generation: o.generation,
    revision: o.revision,
    age_seconds: pointerAgeSeconds(o.updated_at, now),
    journal_depth: j.records.length,
    revision_gaps: revisionGaps(j.records.map((r) => r.record.revision)),
    invalid_lines: j.invalid_lines,
    records: last.map((r) => JSON.parse(r.line) as Record<string, unknown>),
  };
  return { report, lines: last.map((r) => r.line) };
}

export function renderReport(r: Report, recordLines: readonly string[]): string {
  const out = [
    `STATUS=${r.status}`,
    `GENERATION=${r.generation}`,
    `REVISION=${r.revision}`,
    `AGE_SECONDS=${r.age_seconds}`,
    `JOURNAL_DEPTH=${r.journal_depth}`,
    `REVISION_GAPS=${r.revision_gaps}`,
    `INVALID_LINES=${r.invalid_lines}`,
    ...recordLines.map((l) => `RECORD=${l}`),
  ];
  return `${out.join('\n')}\n`;
}

/** The report as printed (text or JSON), refused with REPORT_TOO_LARGE over the limit. */
export function reportOutput(o: Observed, j: JournalRead, now: Date, json: boolean): { text: string; json: Report } {
  const { report, lines } = buildReport(o, j, now);
  const text = json ? `${JSON.stringify(report)}\n` : renderReport(report, lines);
  if (bytes(text) > MAX_REPORT_BYTES) {
    fail('REPORT_TOO_LARGE', `the report is ${bytes(text)} bytes, over the ${MAX_REPORT_BYTES}-byte limit`, { bytes: bytes(text), limit: MAX_REPORT_BYTES });
  }
  return { text, json: report };
}

export interface Recall {
  session_id: string;
  revision: number;
  current_revision: number;
  record: Record<string, unknown> | null;
  /** The text when REV is the current revision and it has one; else RECALL_TEXT_UNAVAILABLE. */
  pointer_text: string;
  reason: string | null;
}

/** The record of revision `rev` (the newest when repeated); the text only for the current revision. */
export function buildRecall(o: Observed, j: JournalRead, rev: number): { recall: Recall; line: string | null } {
  let found: { line: string } | null = null;
  for (let i = j.records.length - 1; i >= 0; i--) {
    if (j.records[i].record.revision === rev) {
      found = j.records[i];
      break;
    }
  }
  const current = o.schema !== 0 && rev === o.revision;
  if (!found && !current) {
    fail('RECALL_NOT_FOUND', `revision ${rev} is neither in the journal nor the current revision (${o.revision})`, { revision: rev, current_revision: o.revision });
  }
  let text = RECALL_TEXT_UNAVAILABLE;
  let reason: string | null = METADATA_ONLY;
  if (current && o.pointer_text !== null) {
    text = o.pointer_text;
    reason = null;
  } else if (current) {
    reason = 'no_pointer_text';
  }
  return {
    recall: { session_id: o.session_id, revision: rev, current_revision: o.revision, record: found ? (JSON.parse(found.line) as Record<string, unknown>) : null, pointer_text: text, reason },
    line: found?.line ?? null,
  };
}

export function renderRecall(r: Recall, line: string | null): string {
  const out = [`SESSION_ID=${r.session_id}`, `REVISION=${r.revision}`, `CURRENT_REVISION=${r.current_revision}`, `RECORD=${line ?? 'NONE'}`];
  if (r.reason === null) out.push('POINTER_TEXT_BEGIN', r.pointer_text, 'POINTER_TEXT_END');
  else out.push(`POINTER_TEXT=${RECALL_TEXT_UNAVAILABLE}`, `REASON=${r.reason}`);
  return `${out.join('\n')}\n`;
}

export function recallOutput(o: Observed, j: JournalRead, rev: number, json: boolean): { text: string; json: Recall } {
  const { recall, line } = buildRecall(o, j, rev);
  const text = json ? `${JSON.stringify(recall)}\n` : renderRecall(recall, line);
  if (bytes(text) > MAX_RECALL_BYTES) {
    fail('RECALL_TOO_LARGE', `the recall is ${bytes(text)} bytes, over the ${MAX_RECALL_BYTES}-byte limit`, { bytes: bytes(text), limit: MAX_RECALL_BYTES });
  }
  return { text, json: recall };
}
