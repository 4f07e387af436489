// What a model does with baton's MCP server, scripted for the stand-in: on a prompt it calls
// `pointer_publish` (under the name its agent gives the tool) with the CAS values of the
// newest pointer block the hooks showed it, or with stale ones when told; after a refusal
// it retries once with the current values the refusal names (what the tool's description
// and the refusal's text tell a model to do); then it answers with one line saying how
// the tool answered. And what the MCP tests read back: a watch on the store (every file's
// digest as each request arrived, so a test can say nothing changed between a tool call and
// the result the agent sent back), the tool result a request carries, the publishes in the
// log. Reads only; the store is never written here.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { relative } from 'node:path';
import assert from 'node:assert/strict';
import { walkTree } from '../helpers.ts';
import type { User } from './agents.ts';
import type { RecordedRequest, Reply, Script, ToolResult } from './model-server.ts';
import { toolResults } from './model-server.ts';
import { newestPointerBlock, publishRequest } from './pointer-agent.ts';
import { events, isSummaryRequest, ofType } from './scenario.ts';

export interface McpPlan {
  /** The pointer text to publish this run; undefined → answer without calling a tool. */
  publish?: string;
  /** CAS values to send instead of the shown block's (a stale publish). */
  stale?: { generation: string; revision: number };
  /** After a refusal, publish once more with the generation and revision it names. */
  retry?: boolean;
}

/** The generation and revision a STALE_* refusal says the pointer has now. */
export function currentFromRefusal(text: string): { generation: string; revision: number } | undefined {
  const m = /the pointer is now generation ([^\s,]+), revision (\d+)/.exec(text);
  return m ? { generation: m[1], revision: Number(m[2]) } : undefined;
}

/** `tool`: the agent's name for baton's `pointer_publish` (e.g. `mcp__baton__pointer_publish`). */
export function mcpPublisher(tool: string, plan: () => McpPlan): Script {
  let input: Record<string, unknown> = {};
  let retried = false;
  return (r: RecordedRequest): Reply => {
    if (isSummaryRequest(r)) return { text: '<summary>Stand-in summary of the conversation.</summary>' };
    const { publish, stale, retry } = plan();
    if (r.lastIsToolResult) {
      const result = toolResults(r)
        .filter((t) => t.name === tool)
        .at(-1);
      if (!result) return { text: 'NO_TOOL_RESULT' };
      const now = result.isError ? currentFromRefusal(result.text) : undefined;
      if (now && retry && !retried) {
        retried = true;
        input = { ...input, expected_generation: now.generation, expected_revision: now.revision };
        return { tool, input };
      }
      return { text: `${result.isError ? 'TOOL_ERROR' : 'TOOL_OK'} ${result.text.slice(0, 300)}` };
    }
    retried = false;
    const block = newestPointerBlock(r.text);
    if (publish === undefined) return { text: block ? `SAW ${block.marker}` : 'SAW NO_POINTER' };
    if (!block) return { text: 'NO_POINTER_BLOCK' };
    // The publish request of pointer.md minus what the tool takes otherwise: no schema_version,
    // and no session (the server finds the agent's own session from the episode its hooks opened).
    const req = publishRequest(block, publish);
    input = {
      expected_generation: stale?.generation ?? req.expected_generation,
      expected_revision: stale?.revision ?? req.expected_revision,
      task_id: req.task_id,
      target_status: 'CLEAN',
      pointer_text: publish,
    };
    return { tool, input };
  };
}

/**
 * Every file under `dir` (relative path → sha256 of its bytes): a deepEqual of two names what
 * changed. Leaves out the session mutex's parked tokens (`.mutex.h<host>.<pid>.<nonce>`, see
 * src/store/mutex.ts): a long-lived process such as `baton mcp` parks one in a session folder
 * the first time it takes that mutex, refused write or not, and removes it at exit.
 */
export function fileDigests(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  walkTree(
    dir,
    (p, st) => {
      if (!st.isFile()) return;
      const rel = relative(dir, p);
      // The agent's own turn may be captured meanwhile (transcript.item events, at its turn end
      // or a hook): those lines, the transcript cursors and the projections every append moves
      // are not the tool call's doing. Every other event line still counts.
      if (rel.split('/').includes('transcripts') || rel.endsWith('/.verified') || rel.endsWith('/manifest.json')) return;
      let data = fs.readFileSync(p);
      if (rel.endsWith('/events.jsonl')) data = Buffer.from(data.toString('utf8').split('\n').filter((l) => !l.includes('"type":"transcript.item"')).map((l) => l.replace(/^\{"seq":\d+,|,"h":"[0-9a-f]+"\}$/g, '')).join('\n'));
      out[rel] = createHash('sha256').update(data).digest('hex');
    },
    (name) => name.startsWith('.mutex.h'),
  );
  return out;
}

/**
 * `script`, plus `hashAt`: the store's hash (by `hash`) when each main request arrived, before
 * it was answered. Between the request that made a tool call and the next one, only that call ran.
 */
export function watchingStore(script: Script, hash: () => Record<string, string>): { script: Script; hashAt: Map<RecordedRequest, Record<string, string>> } {
  const hashAt = new Map<RecordedRequest, Record<string, string>>();
  return {
    hashAt,
    script: (r) => {
      hashAt.set(r, hash());
      return script(r);
    },
  };
}

/** The one result of `tool` a request carries (fails the test when there is not exactly one). */
export function resultOf(r: RecordedRequest, tool: string): ToolResult {
  const out = toolResults(r).filter((t) => t.name === tool);
  assert.equal(out.length, 1, `expected one ${tool} result, got ${JSON.stringify(toolResults(r))}`);
  return out[0];
}

/** The pointer.published events of publish requests (a prompt marking the pointer DIRTY is one too, with source hook:prompt). */
export function publishes(user: User, id: string): any[] {
  return ofType(events(user, id), 'pointer.published').filter((e) => e.payload.source === 'publish');
}
