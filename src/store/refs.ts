// Storage of refs with their target session (refs.md). Owned by the refs work.
import type { FsStore } from './store.ts';

/** Renders the target session's refs for a SessionStart context within budgetBytes. */
export function renderRefsForContext(_store: FsStore, _sessionId: string, _budgetBytes: number, _now: Date): string {
  return '';
}
