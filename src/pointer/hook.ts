// The pointer aspect of the hook (pointer.md, "The three hook events"), provider-neutral.
// Owned by the pointer work: this file fixes the interface the dispatcher calls.
import type { FsStore } from '../store/store.ts';

export type PointerHookEvent =
  | { kind: 'prompt' }
  | { kind: 'pre-compact'; trigger: string }
  | { kind: 'start'; source: string };

export interface PointerHookOptions {
  now: Date;
  /** The exact command line that publishes, for PUBLISHER=. */
  publisherCommand: string;
  /** Rendered refs appended after the pointer block at start (refs.md); given the bytes left. */
  renderRefs?: (budgetBytes: number) => string;
}

export interface PointerHookResult {
  /** The context block to inject (TASK_POINTER_V2 / _BOOTSTRAP / UNKNOWN_RECOVERY ...), if any. */
  context?: string;
  /** The one blocking case: the prompt's DIRTY write failed. */
  block?: { code: string; reason: string };
  /** clear/compact recovery failed: the provider must stop. */
  stop?: { code: string; reason: string };
  /** PreCompact input errors: an ordinary hook failure (non-zero, not 2). */
  failure?: { code: string; message: string };
}

export function pointerAspect(_store: FsStore, _sessionId: string, _event: PointerHookEvent, _opts: PointerHookOptions): PointerHookResult {
  return {};
}
