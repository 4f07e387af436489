// pi (`@mariozechner/pi-coding-agent`, 0.73.1 seen): no shell hooks, TypeScript extensions
// loaded into pi's own process from ~/.pi/agent/extensions/*.ts and .pi/extensions/*.ts. baton
// owns one, `baton.ts` (pi-extension.ts renders it): it turns pi's events into payloads in
// baton's own field names, pipes each into its entry's command (`baton hook pi`) with a
// timeout, and hands the context back to pi from `before_agent_start` as a message. So the
// payload already speaks baton's terms: no normalize. Events: session_start (start; the
// extension reports a `-c`/`--session` start that carries history as `resume`, and a
// finished compaction as start `compact`), input (prompt), session_before_compact
// (pre-compact), session_shutdown (end, reason quit/new/resume/fork; `reload` is skipped),
// agent_end (turn-end: pi finished answering a prompt; the session file already holds the
// turn, and the payload names it in transcript_path — pi 0.73.1 seen, record-transcripts-pi.ts).
import { type ProviderAdapter, shapeJson } from './types.ts';

export const pi: ProviderAdapter = {
  name: 'pi',
  title: 'pi',
  events: { start: 'session_start', prompt: 'input', 'pre-compact': 'session_before_compact', end: 'session_shutdown', 'turn-end': 'agent_end' },
  // `quit` ends every run that shuts down in order (also `pi -p`, Ctrl+C, SIGTERM: pi runs
  // session_shutdown for each); new/resume/fork leave for another session. A crash sends nothing.
  closedReasons: ['quit', 'new', 'resume', 'fork'],
  settings: {
    user: { base: 'home', path: '.pi/agent/extensions/baton.ts' },
    project: { base: 'project', path: '.pi/extensions/baton.ts' },
  },
  ownedFile: 'pi-extension',
  projectDirVar: null,
  // The extension runs each command through /bin/sh in pi's cwd: find the repo root from there.
  shimCommand: '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.baton/hooks/pi',
  timeoutValue: 10,
  timeoutUnit: 'seconds',
  budgetMs: { start: 10_000, prompt: 10_000, 'pre-compact': 10_000, end: 10_000, 'turn-end': 10_000 },
  shape: (ev, res) => shapeJson(ev, res, { contextEvents: ['start', 'prompt'] }),
};
