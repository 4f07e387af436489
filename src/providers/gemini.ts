// Gemini CLI (`gemini`): SessionStart / BeforeAgent / PreCompress / SessionEnd. Output is
// JSON only (plain text becomes a UI message, not context); timeouts are milliseconds.
import { type ProviderAdapter, shapeJson } from './types.ts';

const OPEN = '<hook_context>';
const CLOSE = '</hook_context>';

/**
 * Gemini CLI (0.61.0, seen in the e2e runs) puts the SessionStart context before the user's
 * text in BeforeAgent's `prompt` as `<hook_context>...</hook_context>\n\n`, and appends
 * BeforeAgent contexts the same way: the archive keeps only what the user typed.
 * Linear: index searches only, no regex over a prompt that may be 10 MB of whitespace.
 */
export function stripHookContext(prompt: string): string {
  let out = prompt;
  for (let i = 0; i < 8; i++) {
    const t = out.trimStart();
    const close = t.startsWith(OPEN) ? t.indexOf(CLOSE) : -1;
    if (close < 0) break;
    out = t.slice(close + CLOSE.length).trimStart();
  }
  for (let i = 0; i < 8; i++) {
    const t = out.trimEnd();
    const open = t.endsWith(CLOSE) ? t.lastIndexOf(OPEN) : -1;
    if (open < 0) break;
    out = t.slice(0, open).trimEnd();
  }
  return out;
}

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
