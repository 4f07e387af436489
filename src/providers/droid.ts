// Factory Droid (`droid`, 0.225.x seen): Claude Code's hook format in ~/.factory/settings.json,
// .factory/settings.json and .factory/settings.local.json — SessionStart / UserPromptSubmit /
// PreCompact / SessionEnd with hookSpecificOutput.additionalContext (seen reaching the model
// at start). `droid exec` fires SessionStart and SessionEnd (reason `other`) but no
// UserPromptSubmit: prompts of exec runs are not archived (docs/hooks.md, Factory Droid).
import { type ProviderAdapter, shapeJson } from './types.ts';

export const droid: ProviderAdapter = {
  name: 'droid',
  title: 'Factory Droid',
  // Stop fires at the end of every turn, exec included (0.225.2: test/fixtures/providers/droid/Stop.json, with transcript_path).
  events: { start: 'SessionStart', prompt: 'UserPromptSubmit', 'pre-compact': 'PreCompact', end: 'SessionEnd', 'turn-end': 'Stop' },
  // Claude Code's reason table: `other` (every `droid exec` end) → interrupted.
  closedReasons: ['clear', 'logout', 'prompt_input_exit', 'resume'],
  settings: {
    user: { base: 'home', path: '.factory/settings.json' },
    project: { base: 'project', path: '.factory/settings.json' },
    local: { base: 'project', path: '.factory/settings.local.json' },
  },
  projectDirVar: null,
  // Not relying on a project-dir variable (none was seen in the runs): find the repo root from the session's cwd.
  shimCommand: '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/droid',
  timeoutValue: 10,
  timeoutUnit: 'seconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000, 'turn-end': 10_000 },
  shape: (ev, res) => shapeJson(ev, res, { contextEvents: ['start', 'prompt'] }),
};
