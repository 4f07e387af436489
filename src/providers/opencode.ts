// opencode (`opencode`, 1.18.33 seen) and Kilo (`kilo`, 7.7.7 seen; a fork of opencode with the
// same plugin API): no command hooks, JS plugins in the agent's process. baton owns one plugin
// file per scope (plugin-file.ts) that sends payloads already in baton's field names, the
// event named by the plugin: `session.start` (source startup / resume / compact),
// `chat.message` (prompt), `session.compacting` (trigger auto), `session.idle` (reason idle).
// Neither agent has a session end: `session.idle` — the agent finished its turn and waits, the
// end of every `opencode run` — closes the episode as `closed`; the next prompt of that session
// opens a new one (source resume). Output: `{"context": ...}` on stdout, read by the plugin.
import type { PointerHookResult } from '../pointer/hook.ts';
import type { HookEvent, HookOutput, ProviderAdapter } from './types.ts';

/**
 * The pointer's result as the plugin reads it. The plugin cannot block a prompt or stop the
 * agent without throwing into it (it never does): a block or stop is said to the model as
 * context, with its TASK_POINTER_V2 line on stderr.
 */
function shapeForPlugin(ev: HookEvent, res: PointerHookResult): HookOutput {
  if (res.failure) return { stdout: '', stderr: [`baton: hook pointer: ${res.failure.code} ${res.failure.message}`], exitCode: 1 };
  const refused = res.block ?? res.stop;
  const context = [refused?.reason, ev.kind === 'end' ? undefined : res.context].filter(Boolean).join('\n');
  return {
    stdout: context ? `${JSON.stringify({ context })}\n` : '',
    stderr: refused ? [`TASK_POINTER_V2:${refused.code}`] : [],
    exitCode: 0,
  };
}

function pluginAdapter(name: 'opencode' | 'kilo', title: string, userDir: string, projectDir: string): ProviderAdapter {
  return {
    name,
    title,
    events: { start: 'session.start', prompt: 'chat.message', 'pre-compact': 'session.compacting', end: 'session.idle' },
    // `idle`: the agent finished its turn on its own (the end of every `run`).
    closedReasons: ['idle'],
    settings: {
      user: { base: 'home', path: `${userDir}/plugin/baton.js` },
      project: { base: 'project', path: `${projectDir}/plugin/baton.js` },
    },
    ownedFile: 'plugin',
    projectDirVar: null,
    // The plugin runs the command in the session's directory: find the repo root from there.
    shimCommand: `"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/${name}`,
    timeoutValue: 10_000,
    timeoutUnit: 'milliseconds',
    budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000 },
    // A message with no text of the user's (only synthetic parts: opencode's own continuation
    // after a compaction, say) is no prompt: archiving it or marking the pointer DIRTY would be wrong.
    ignore: (raw) => {
      const p = raw as Record<string, unknown> | null;
      return !!p && typeof p === 'object' && p.hook_event_name === 'chat.message' && p.prompt === '';
    },
    shape: shapeForPlugin,
  };
}

export const opencode = pluginAdapter('opencode', 'opencode', '.config/opencode', '.opencode');
export const kilo = pluginAdapter('kilo', 'Kilo', '.config/kilo', '.kilo');
