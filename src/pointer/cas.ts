// The one place a pointer write happens, for the publisher and the hook alike. The caller
// holds the session mutex (store.locked) and has re-read and compared the state.
// Order: state.json (atomic, durable) → `pointer.published|cleared` event (metadata only)
// → journal line. An event refusal (archived, runtime not allowed, corrupt log) puts the
// old state back, so a failed write changed nothing; a journal failure is only reported.
// What a crash leaves: a state ahead of its event and journal line (the state is the
// pointer's source of truth; a missing journal revision shows as a REVISION_GAPS count).
import { BatonError, fail } from '../core/errors.ts';
import type { EventInput, StoredEvent } from '../core/events.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { type JournalRecord, appendJournal, journalRecord } from './journal.ts';
import { type Observed, type PointerState, restoreState, writeState } from './state.ts';

export interface Commit {
  state: PointerState;
  raw: Buffer;
  record: JournalRecord;
  journal_appended: boolean;
  journal_error: 'JOURNAL_APPEND_FAILED' | null;
  /** Appended under the mutex; the caller runs store.afterAppend(id, events) after releasing it. */
  events: StoredEvent[];
}

/** Where a write came from, recorded in the event (publish, prompt fence/mark, start clear, migrate). */
export type WriteSource = 'publish' | 'hook:prompt' | 'hook:clear' | 'migrate';

export function pointerEvent(record: JournalRecord, previous: Observed, source: WriteSource, writer: Writer): EventInput {
  return {
    type: record.event === 'CLEARED' ? 'pointer.cleared' : 'pointer.published',
    surface: writer.surface,
    actor: writer.actor,
    payload: {
      generation: record.generation,
      revision: record.revision,
      status: record.status,
      task_id: record.task_id,
      pointer_digest: record.pointer_digest,
      pointer_byte_count: record.pointer_byte_count,
      previous_generation: previous.generation,
      previous_revision: record.previous_revision,
      previous_status: record.previous_status,
      source,
    },
  };
}

export function commitUnderMutex(store: FsStore, current: Observed, next: PointerState, writer: Writer, source: WriteSource, now: Date): Commit {
  const id = current.session_id;
  const dir = store.dir(id);
  const raw = writeState(dir, next);
  const record = journalRecord(current, next, now);
  let events: StoredEvent[];
  try {
    events = store.appendUnderMutex(id, [pointerEvent(record, current, source, writer)], writer);
  } catch (e) {
    restoreState(dir, current.raw);
    const code = e instanceof BatonError ? e.code : ((e as NodeJS.ErrnoException).code ?? null);
    fail('WRITE_FAILED', `the pointer event could not be appended, the state was put back: ${(e as Error).message}`, { cause: code });
  }
  let appended = true;
  try {
    appendJournal(dir, record);
  } catch {
    appended = false;
  }
  return { state: next, raw, record, journal_appended: appended, journal_error: appended ? null : 'JOURNAL_APPEND_FAILED', events };
}

export type PointerErrorCode = 'STATE_CORRUPT' | 'LOCK_TIMEOUT' | 'WRITE_FAILED';

/** Maps anything a pointer write threw onto the pointer's codes: the mutex's WS103 is LOCK_TIMEOUT. */
export function pointerError(e: unknown): { code: PointerErrorCode; message: string; cause: string | null } {
  if (e instanceof BatonError) {
    if (e.code === 'WS103') return { code: 'LOCK_TIMEOUT', message: e.message, cause: 'WS103' };
    // state.json itself is a symbolic link: the state cannot be used (never read through it).
    if (e.code === 'WS010' && /[/\\]state\.json$/.test(String(e.details.path ?? ''))) return { code: 'STATE_CORRUPT', message: e.message, cause: 'WS010' };
    if (e.code === 'STATE_CORRUPT' || e.code === 'LOCK_TIMEOUT' || e.code === 'WRITE_FAILED') {
      return { code: e.code as PointerErrorCode, message: e.message, cause: typeof e.details.cause === 'string' ? e.details.cause : null };
    }
    return { code: 'WRITE_FAILED', message: e.message, cause: e.code };
  }
  const err = e as NodeJS.ErrnoException;
  return { code: 'WRITE_FAILED', message: err?.message ?? String(e), cause: err?.code ?? null };
}
