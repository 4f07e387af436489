// What a provider adapter is: the mapping between one agent program's hook protocol and
// baton's provider-neutral events (hooks.md). Pure data and pure functions: adapters are
// loaded on the hook path, so nothing here imports a library or touches the disk.
import type { PointerHookResult } from '../pointer/hook.ts';

/** baton's lifecycle events; `turn-end` is the agent's end of a turn (transcripts.md, "Capture from the hooks"). */
export type HookKind = 'start' | 'prompt' | 'pre-compact' | 'end' | 'turn-end';
export const HOOK_KINDS: readonly HookKind[] = ['start', 'prompt', 'pre-compact', 'end', 'turn-end'];

export type Aspect = 'session' | 'prompt' | 'pointer' | 'transcript';
export const ASPECTS: readonly Aspect[] = ['session', 'prompt', 'pointer', 'transcript'];

/** Which events each aspect needs (hooks.md, the aspect table). */
export const ASPECT_EVENTS: Record<Aspect, readonly HookKind[]> = {
  session: ['start', 'end'],
  prompt: ['prompt'],
  pointer: ['start', 'prompt', 'pre-compact'],
  // Capture at turn end, before a compaction, at the session end, and a catch-up at the next start.
  transcript: ['turn-end', 'pre-compact', 'end', 'start'],
};

export type Scope = 'user' | 'project' | 'local';

/** A payload mapped onto baton's terms. Unknown fields are dropped, unknown strings kept. */
export interface HookEvent {
  kind: HookKind;
  /** The provider's own event name, as received. */
  providerEvent: string;
  providerSessionId: string;
  cwd: string | null;
  transcriptPath: string | null;
  model: string | null;
  /** start: startup/resume/clear/compact/fork/... (unknown accepted). */
  source?: string;
  /** end: the provider's reason (unknown accepted). */
  reason?: string;
  /** pre-compact: manual/auto. */
  trigger?: string;
  /** prompt: the prompt text. */
  prompt?: string;
  /** The payload as received (normalized), for a reader whose items come in it (baton's own plugins). */
  payload?: Record<string, unknown>;
}

/** What the hook process hands back to the provider. */
export interface HookOutput {
  stdout: string;
  stderr: string[];
  exitCode: number;
}

export interface ProviderAdapter {
  name: 'claude' | 'codex' | 'gemini' | 'qwen' | 'copilot' | 'droid' | 'opencode' | 'kilo' | 'pi';
  /** Human name for messages. */
  title: string;
  /** The provider's event name for each of baton's events; absent = the provider has none. */
  events: Partial<Record<HookKind, string>>;
  /** End reasons that mean a deliberate end (→ closed); anything else → interrupted. */
  closedReasons: readonly string[];
  /** Scopes and their settings files, relative to the user's home or the project root. */
  settings: Partial<Record<Scope, { base: 'home' | 'project'; path: string }>>;
  /** The environment variable that names the project root in a hook's command, if any. */
  projectDirVar: string | null;
  /** How a project-scope entry reaches the repo's shim (a shell word). */
  shimCommand: string;
  /** Timeout written into each entry, in the provider's unit. */
  timeoutValue: number;
  timeoutUnit: 'seconds' | 'milliseconds';
  /** Total time budget per event, ms (Claude Code: SessionEnd hooks share 1.5 s). */
  budgetMs: Partial<Record<HookKind, number>>;
  /** Extra fields of a baton hook entry (Gemini names its hooks). */
  entryExtras?: Record<string, unknown>;
  /** True for a payload that looks like an event but is not one for baton (answered with nothing, written nowhere). */
  ignore?: (raw: unknown) => boolean;
  /** A payload in another shape (Copilot's camelCase, no event name) turned into baton's field names. */
  normalize?: (raw: Record<string, unknown>, env: NodeJS.ProcessEnv) => Record<string, unknown>;
  /**
   * The settings files are whole files baton owns (owned-file.ts): `hooks-json`, a hooks file
   * in the provider's own format (Copilot reads a folder of them; each entry's command names
   * its event in BATON_HOOK_EVENT); `plugin`, baton's JS plugin (opencode, Kilo), whose
   * payloads name their event.
   */
  ownedFile?: 'hooks-json' | 'plugin' | 'pi-extension';
  /** The user's own prompt out of the payload's `prompt` (Gemini wraps hook context into it). */
  cleanPrompt?: (prompt: string) => string;
  /** Said after install (Codex's trust step and sandbox, Gemini's re-confirmation), given the store root. */
  installNote?: (storeHome: string, scope: Scope) => string | undefined;
  /**
   * An agent that writes its transcript only after its hooks have run (Copilot flushes its
   * events file as it exits): whether it has let go of the transcript of `ev`'s session. When
   * set, the end event's capture is also deferred to a detached run that waits for this
   * (docs/adr/0070-deferred-capture.md).
   */
  transcriptSettled?: (ev: HookEvent, env: NodeJS.ProcessEnv) => boolean;
  /** Turns the pointer aspect's result into this provider's stdout/stderr/exit code. */
  shape(ev: HookEvent, res: PointerHookResult): HookOutput;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The lenient payload mapping every adapter shares: unknown fields ignored, unknown strings kept. */
export function mapPayload(adapter: ProviderAdapter, raw: unknown, env: NodeJS.ProcessEnv = {}): HookEvent | { error: string } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'payload is not a JSON object' };
  const p = adapter.normalize ? adapter.normalize(raw as Record<string, unknown>, env) : (raw as Record<string, unknown>);
  const name = str(p.hook_event_name);
  const sid = str(p.session_id);
  if (!name) return { error: 'payload lacks hook_event_name' };
  if (!sid) return { error: 'payload lacks session_id' };
  const kind = (Object.keys(adapter.events) as HookKind[]).find((k) => adapter.events[k] === name);
  if (!kind) return { error: `event ${name} is not one baton handles for ${adapter.name}` };
  const ev: HookEvent = {
    kind,
    providerEvent: name,
    providerSessionId: sid,
    cwd: str(p.cwd) ?? null,
    transcriptPath: str(p.transcript_path) ?? null,
    model: str(p.model) ?? null,
  };
  if (kind === 'start') ev.source = str(p.source) || 'startup';
  if (kind === 'end') ev.reason = str(p.reason) || 'other';
  if (kind === 'pre-compact') ev.trigger = str(p.trigger) ?? '';
  if (kind !== 'prompt') ev.payload = p;
  if (kind === 'prompt') {
    const prompt = str(p.prompt) ?? '';
    ev.prompt = adapter.cleanPrompt ? adapter.cleanPrompt(prompt) : prompt;
  }
  return ev;
}

/** closed for a reason the adapter lists as deliberate, interrupted for anything else. */
export function outcomeOf(adapter: Pick<ProviderAdapter, 'closedReasons'>, reason: string): 'closed' | 'interrupted' {
  return adapter.closedReasons.includes(reason) ? 'closed' : 'interrupted';
}

/** JSON output in Claude Code's shape, shared by the adapters that speak it. */
export function shapeJson(ev: HookEvent, res: PointerHookResult, opts: { contextEvents: readonly HookKind[] }): HookOutput {
  if (res.failure) return { stdout: '', stderr: [`baton: hook pointer: ${res.failure.code} ${res.failure.message}`], exitCode: 1 };
  if (res.block) {
    return {
      stdout: `${JSON.stringify({ decision: 'block', reason: res.block.reason })}\n`,
      stderr: [`TASK_POINTER_V2:${res.block.code}`],
      exitCode: 2,
    };
  }
  if (res.stop) {
    const out: Record<string, unknown> = { continue: false, stopReason: res.stop.reason };
    if (res.context && opts.contextEvents.includes(ev.kind)) out.hookSpecificOutput = { hookEventName: ev.providerEvent, additionalContext: res.context };
    return { stdout: `${JSON.stringify(out)}\n`, stderr: [`TASK_POINTER_V2:${res.stop.code}`], exitCode: 0 };
  }
  if (res.context && opts.contextEvents.includes(ev.kind)) {
    return { stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: ev.providerEvent, additionalContext: res.context } })}\n`, stderr: [], exitCode: 0 };
  }
  return { stdout: '', stderr: [], exitCode: 0 };
}
