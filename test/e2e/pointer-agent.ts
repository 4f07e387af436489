// What a model that follows baton's injected instructions does, scripted: it reads the
// last task-pointer block (TASK_POINTER_V2 / _BOOTSTRAP / UNKNOWN_RECOVERY:...) in the
// text it was sent, and publishes its pointer by piping a CAS request into the block's
// PUBLISHER command. Pure parsing and string building; the stand-in server calls it.
import { randomUUID } from 'node:crypto';

export interface PointerBlock {
  /** The first line: TASK_POINTER_V2, TASK_POINTER_V2_BOOTSTRAP, UNKNOWN_RECOVERY:<CODE>, TASK_POINTER_RECOVERY_REQUIRED... */
  marker: string;
  fields: Record<string, string>;
  /** The text between POINTER_TEXT_BEGIN and POINTER_TEXT_END, when the block has one. */
  pointerText?: string;
}

// The marker ends its line; the agent program may put a label before it (Claude Code:
// "SessionStart hook additional context: ", Gemini CLI: "<hook_context>").
const MARKER_LINE = /(?:^|[\s:>])(TASK_POINTER_V2(?:_BOOTSTRAP)?|UNKNOWN_RECOVERY:[A-Z0-9_]+|TASK_POINTER_RECOVERY_REQUIRED(?::[A-Z0-9_]+)?)$/;

/** Every pointer block in `text`, in order of appearance. */
export function pointerBlocks(text: string): PointerBlock[] {
  const lines = text.split('\n');
  const blocks: PointerBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER_LINE.exec(lines[i].trim());
    if (!m) continue;
    const block: PointerBlock = { marker: m[1], fields: {} };
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j];
      if (line === 'POINTER_TEXT_BEGIN') {
        const end = lines.indexOf('POINTER_TEXT_END', j + 1);
        if (end < 0) break;
        block.pointerText = lines.slice(j + 1, end).join('\n');
        j = end;
        continue;
      }
      const kv = /^([A-Z][A-Z0-9_]*)=(.*?)(?:<\/hook_context>)?$/.exec(line);
      if (!kv) break;
      block.fields[kv[1]] = kv[2];
    }
    blocks.push(block);
    i = j - 1;
  }
  return blocks;
}

export function lastPointerBlock(text: string): PointerBlock | undefined {
  return pointerBlocks(text).at(-1);
}

/**
 * The newest block an agent was shown: the highest REVISION (the agent program may order
 * the start context after the prompt's, as Claude Code 2.1.328 does); ties go to the later one.
 */
export function newestPointerBlock(text: string): PointerBlock | undefined {
  let best: PointerBlock | undefined;
  for (const b of pointerBlocks(text)) {
    const rev = Number(b.fields.REVISION ?? -1);
    if (!best || rev >= Number(best.fields.REVISION ?? -1)) best = b;
  }
  return best;
}

/**
 * The publish request a diligent agent sends for `block`: CAS on the generation and revision it
 * was shown; the task id of the block, else the one its INSTRUCTION's request form offers.
 */
export function publishRequest(block: PointerBlock, pointerText: string): Record<string, unknown> {
  const offered = /"task_id":"([0-9a-f-]{36})"/.exec(block.fields.INSTRUCTION ?? '')?.[1];
  return {
    schema_version: 3,
    session_id: block.fields.SESSION_ID,
    expected_generation: block.fields.GENERATION,
    expected_revision: Number(block.fields.REVISION),
    task_id: block.fields.TASK_ID ?? offered ?? randomUUID(),
    target_status: 'CLEAN',
    pointer_text: pointerText,
  };
}

/** A shell command that pipes `request` into `publisher`, immune to quoting (base64). */
export function publishShell(publisher: string, request: Record<string, unknown>): string {
  const b64 = Buffer.from(JSON.stringify(request), 'utf8').toString('base64');
  return `printf '%s' '${b64}' | base64 -d | ${publisher}`;
}

/** The receipt the publisher printed, found in a tool result's text; undefined when there is none. */
export function receiptIn(text: string): any {
  for (const m of text.matchAll(/\{[^{}]*"ok"\s*:\s*(?:true|false)[^{}]*\}/g)) {
    try {
      return JSON.parse(m[0]);
    } catch {}
  }
  return undefined;
}
