// What Gemini CLI adds to the user's text, taken off again: the adapter's prompt and the transcript
// reader both need it, and the reader's bundle takes it from the hook bundle without the adapter
// (src/hooks/shared-modules.ts; a hook bundle built for another agent has no Gemini adapter).
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
