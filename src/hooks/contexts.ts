// Frozen start contexts (hooks.md): contexts/<stamp>--<episode>.md in the session folder,
// holding exactly the text the start event injected, under a header naming the session,
// provider, source and time; the closure is appended at close. Written once with O_EXCL
// (never overwritten) and appended to once; nothing prunes it. Not fsync'd: it is written
// before episode.opened, so a crash leaves at worst a context file no event names.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { redactText } from '../core/redact.ts';
import { isoMillis } from '../core/time.ts';
import { FILE_MODE, appendDurable, ensureSubdir, refuseLink } from '../store/fsutil.ts';
import { contextStamp } from './episodes.ts';

export const CONTEXTS_DIR = 'contexts';

export interface FreezeSpec {
  session: string;
  episode: string;
  provider: string;
  providerSessionId: string;
  source: string;
  now: Date;
  /** Exactly what was injected ('' when nothing was). */
  injected: string;
  /** Why nothing was injected, when nothing was. */
  note?: string;
}

/** A fence longer than any run of backticks in the text, so the text is kept verbatim. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The document's text at open (pure). */
export function frozenContextText(s: FreezeSpec): string {
  const lines = [
    `<!-- baton:start-context session=${s.session} episode=${s.episode} -->`,
    `# Start context of episode ${s.episode}`,
    '',
    `- session: ${s.session}`,
    `- provider: ${s.provider} (provider session ${s.providerSessionId})`,
    `- source: ${s.source}`,
    `- time: ${isoMillis(s.now)}`,
    '',
    '## What the agent was told',
    '',
  ];
  if (s.injected) {
    const f = fenceFor(s.injected);
    lines.push(`${f}text`, s.injected.endsWith('\n') ? s.injected.slice(0, -1) : s.injected, f);
  } else {
    lines.push(`(nothing was injected${s.note ? `: ${s.note}` : ''})`);
  }
  lines.push('');
  return `${lines.join('\n')}\n`;
}

/** Writes the document; returns its path relative to the session folder. */
export function writeFrozenContext(sessionDir: string, s: FreezeSpec): string {
  const dir = join(sessionDir, CONTEXTS_DIR);
  ensureSubdir(dir);
  const rel = `${CONTEXTS_DIR}/${contextStamp(s.now)}--${s.episode}.md`;
  const fd = fs.openSync(join(sessionDir, rel), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, FILE_MODE);
  try {
    // What was injected is kept as it was, but for secrets (a pointer stored before they were redacted).
    fs.writeSync(fd, frozenContextText({ ...s, injected: redactText(s.injected) }));
  } finally {
    fs.closeSync(fd);
  }
  return rel;
}

export interface ClosureSpec {
  reason: string;
  outcome: string;
  durationMs: number;
  prompts: number;
  now: Date;
  pointer: { status: string; revision: number } | null;
}

export function closureText(c: ClosureSpec): string {
  return [
    '## Closed',
    '',
    `- time: ${isoMillis(c.now)}`,
    `- reason: ${c.reason}`,
    `- outcome: ${c.outcome}`,
    `- duration: ${c.durationMs} ms`,
    `- prompts: ${c.prompts}`,
    `- pointer at close: ${c.pointer ? `${c.pointer.status} revision ${c.pointer.revision}` : 'ABSENT'}`,
    '',
  ].join('\n');
}

/** Appends the closure to the episode's document (when it has one). */
export function appendClosure(sessionDir: string, contextFile: string | null, c: ClosureSpec): void {
  if (!contextFile || contextFile.includes('..')) return;
  // Neither the folder nor the file may be a link planted in the store (WS010).
  refuseLink(join(sessionDir, CONTEXTS_DIR));
  appendDurable(join(sessionDir, contextFile), closureText(c), false);
}
