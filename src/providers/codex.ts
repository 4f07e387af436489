// Codex CLI (`codex`): SessionStart / UserPromptSubmit / PreCompact / SessionEnd. hooks.md
// (after the Codex sources it was checked against) says Codex has no end event; the real
// Codex CLI 0.171.0 sends SessionEnd (reason `other` when `codex exec` finishes, like Claude's
// print mode: test/fixtures/providers/codex/observed-0.171.0-exec-resume.jsonl), so baton
// wires it. An older Codex without it never fires the entry: its episodes stay open, as
// before. Context goes out as plain text; blocks and stops as Claude-shaped JSON (stdout
// starting with `{` must parse).
import { type ProviderAdapter, shapeJson } from './types.ts';

export const codex: ProviderAdapter = {
  name: 'codex',
  title: 'Codex CLI',
  // Stop fires after every turn (0.171.0: test/fixtures/providers/codex/Stop.json, with transcript_path).
  events: { start: 'SessionStart', prompt: 'UserPromptSubmit', 'pre-compact': 'PreCompact', end: 'SessionEnd', 'turn-end': 'Stop' },
  // Codex's end reasons follow Claude Code's: the deliberate ones close, anything else interrupts.
  closedReasons: ['clear', 'logout', 'prompt_input_exit', 'resume'],
  settings: {
    user: { base: 'home', path: '.codex/hooks.json' },
    project: { base: 'project', path: '.codex/hooks.json' },
  },
  projectDirVar: null,
  // Codex names no project-dir variable: hooks run in the session's cwd, so find the repo root.
  shimCommand: '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/codex',
  timeoutValue: 10,
  timeoutUnit: 'seconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000, 'turn-end': 10_000 },
  installNote: (home) =>
    'Codex runs unmanaged hooks only after you trust them: open /hooks in Codex and trust the baton entries.\n' +
    `Codex runs the agent's commands in a sandbox: for the agent to publish its pointer, the store must be writable from it (add ${home} to sandbox_workspace_write.writable_roots in ~/.codex/config.toml, or run with --sandbox workspace-write and the store inside the workspace).`,
  shape: (ev, res) => {
    if (res.context && !res.block && !res.stop && !res.failure && (ev.kind === 'start' || ev.kind === 'prompt')) {
      const t = res.context;
      // Plain text becomes a developer message; text that looks like JSON must be JSON.
      if (/^\s*[{[]/.test(t)) return shapeJson(ev, res, { contextEvents: ['start', 'prompt'] });
      return { stdout: t.endsWith('\n') ? t : `${t}\n`, stderr: [], exitCode: 0 };
    }
    return shapeJson(ev, res, { contextEvents: ['start', 'prompt'] });
  },
};
