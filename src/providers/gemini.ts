// Gemini CLI (`gemini`): SessionStart / BeforeAgent / PreCompress / SessionEnd. Output is
// JSON only (plain text becomes a UI message, not context); timeouts are milliseconds.
import { stripHookContext } from './gemini-context.ts';
import { type ProviderAdapter, shapeJson } from './types.ts';

export const gemini: ProviderAdapter = {
  name: 'gemini',
  title: 'Gemini CLI',
  events: { start: 'SessionStart', prompt: 'BeforeAgent', 'pre-compact': 'PreCompress', end: 'SessionEnd', 'turn-end': 'AfterAgent' },
  // `exit` is Gemini's normal end; `other` and unknown reasons → interrupted.
  closedReasons: ['exit', 'clear', 'logout', 'prompt_input_exit'],
  settings: {
    user: { base: 'home', path: '.gemini/settings.json' },
    project: { base: 'project', path: '.gemini/settings.json' },
  },
  projectDirVar: 'GEMINI_PROJECT_DIR',
  shimCommand: '"$GEMINI_PROJECT_DIR"/.baton/hooks/gemini',
  timeoutValue: 10_000,
  timeoutUnit: 'milliseconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000, 'turn-end': 10_000 },
  entryExtras: { name: 'baton' },
  cleanPrompt: stripHookContext,
  installNote: (_home, scope) => (scope === 'user' ? undefined : 'Gemini CLI asks you to confirm changed project hooks the next time it starts: accept the baton entries.'),
  shape: (ev, res) => shapeJson(ev, res, { contextEvents: ['start', 'prompt'] }),
};
