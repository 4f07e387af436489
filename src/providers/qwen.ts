// Qwen Code (`qwen`, 0.24.4 seen): Claude Code's hook format in ~/.qwen/settings.json and
// .qwen/settings.json — SessionStart / UserPromptSubmit / PreCompact / SessionEnd with
// hookSpecificOutput.additionalContext (seen reaching the model: start context at the end of
// the system message, prompt context as an extra user part). Command timeouts are
// milliseconds; hooks get $QWEN_PROJECT_DIR. SessionEnd fires only in interactive mode
// (`/quit`, reason prompt_input_exit); `qwen -p` never sends it (docs/hooks.md, Qwen Code).
import { type ProviderAdapter, shapeJson } from './types.ts';

export const qwen: ProviderAdapter = {
  name: 'qwen',
  title: 'Qwen Code',
  events: { start: 'SessionStart', prompt: 'UserPromptSubmit', 'pre-compact': 'PreCompact', end: 'SessionEnd', 'turn-end': 'Stop' },
  // Claude Code's reason table (Qwen copies its SessionEnd reasons).
  closedReasons: ['clear', 'logout', 'prompt_input_exit', 'resume'],
  settings: {
    user: { base: 'home', path: '.qwen/settings.json' },
    project: { base: 'project', path: '.qwen/settings.json' },
  },
  projectDirVar: 'QWEN_PROJECT_DIR',
  shimCommand: '"$QWEN_PROJECT_DIR"/.baton/hooks/qwen',
  timeoutValue: 10_000,
  timeoutUnit: 'milliseconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000, 'turn-end': 10_000 },
  entryExtras: { name: 'baton' },
  // Qwen Code 0.24.4 fires UserPromptSubmit again when it sends a tool result back to the
  // model: same prompt_id, `prompt: ""`, no `submitted_prompt` (seen in the e2e run). That is
  // no prompt of the user's: archiving it, or marking the pointer DIRTY, would be wrong.
  ignore: (raw) => {
    const p = raw as Record<string, unknown> | null;
    return !!p && typeof p === 'object' && p.hook_event_name === 'UserPromptSubmit' && p.prompt === '' && p.submitted_prompt === undefined;
  },
  shape: (ev, res) => shapeJson(ev, res, { contextEvents: ['start', 'prompt'] }),
};
