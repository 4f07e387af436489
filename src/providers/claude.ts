// Claude Code (`claude`): SessionStart / UserPromptSubmit / PreCompact / SessionEnd, JSON
// output with hookSpecificOutput.additionalContext (fixtures/providers/README.md).
import { type ProviderAdapter, shapeJson } from './types.ts';

export const claude: ProviderAdapter = {
  name: 'claude',
  title: 'Claude Code',
  events: { start: 'SessionStart', prompt: 'UserPromptSubmit', 'pre-compact': 'PreCompact', end: 'SessionEnd', 'turn-end': 'Stop' },
  // Deliberate ends; `other` (normal print-mode end and SIGTERM alike), `exit` and anything unknown → interrupted.
  closedReasons: ['clear', 'logout', 'prompt_input_exit', 'resume'],
  settings: {
    user: { base: 'home', path: '.claude/settings.json' },
    project: { base: 'project', path: '.claude/settings.json' },
    local: { base: 'project', path: '.claude/settings.local.json' },
  },
  projectDirVar: 'CLAUDE_PROJECT_DIR',
  shimCommand: '"$CLAUDE_PROJECT_DIR"/.baton/hooks/claude',
  timeoutValue: 10,
  timeoutUnit: 'seconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 1_500, 'turn-end': 10_000 },
  shape: (ev, res) => shapeJson(ev, res, { contextEvents: ['start', 'prompt'] }),
};
