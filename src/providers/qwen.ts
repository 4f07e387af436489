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
  events: { start: 'SessionStart', prompt: 'UserPromptSubmit', 'pre-compact': 'PreCompact', end: 'SessionEnd' },
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
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000 },
  entryExtras: { name: 'baton' },
  shape: (ev, res) => shapeJson(ev, res, { contextEvents: ['start', 'prompt'] }),
};
