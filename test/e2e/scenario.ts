// Shared pieces of the e2e scenarios: the scripted "diligent agent" behaviour for the
// stand-in server, and readers of what baton left in the store. Read-only on the store.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readJsonl } from '../helpers.ts';
import type { User } from './agents.ts';
import type { RecordedRequest, Reply, Script } from './model-server.ts';
import { newestPointerBlock, publishRequest, publishShell, receiptIn } from './pointer-agent.ts';

/**
 * Compaction requests (Claude Code 2.1.328's /compact sends two, each ending with an
 * instruction to write a summary) get a summary, never a tool call.
 */
export function isSummaryRequest(r: RecordedRequest): boolean {
  return !r.lastIsToolResult && /Tool calls will be rejected|how to write this summary/.test(r.lastUserText.slice(-2000));
}

export interface AgentPlan {
  /** The pointer text to publish this run; undefined → answer without publishing. */
  publish?: string;
}

/**
 * A model that follows baton's instructions: on a new prompt it reads the last pointer
 * block it was sent and pipes a CAS publish request into PUBLISHER; after the tool result
 * it reports the receipt in its answer (`RECEIPT {...}` or `NO_RECEIPT`).
 */
export function diligentAgent(plan: () => AgentPlan): Script {
  return (r: RecordedRequest): Reply => {
    if (isSummaryRequest(r)) return { text: '<summary>Stand-in summary of the conversation.</summary>' };
    if (r.lastIsToolResult) {
      const receipt = receiptIn(r.lastUserText);
      return { text: receipt ? `RECEIPT ${JSON.stringify(receipt)}` : `NO_RECEIPT ${r.lastUserText.slice(0, 500)}` };
    }
    const { publish } = plan();
    const block = newestPointerBlock(r.text);
    if (publish === undefined) return { text: block ? `SAW ${block.marker} STATUS=${block.fields.STATUS ?? '?'}` : 'SAW NO_POINTER' };
    if (!block?.fields.PUBLISHER) return { text: 'NO_PUBLISHER' };
    return { shell: publishShell(block.fields.PUBLISHER, publishRequest(block, publish)) };
  };
}

export function sessionDir(user: User, id: string): string {
  return join(user.batonHome, 'sessions', id);
}

export function events(user: User, id: string): any[] {
  const f = join(sessionDir(user, id), 'events.jsonl');
  return fs.existsSync(f) ? readJsonl(f) : [];
}

export function ofType(evs: any[], type: string): any[] {
  return evs.filter((e) => e.type === type);
}

export function pointerState(user: User, id: string): any {
  return JSON.parse(fs.readFileSync(join(sessionDir(user, id), 'state.json'), 'utf8'));
}

export function contextFiles(user: User, id: string): string[] {
  const d = join(sessionDir(user, id), 'contexts');
  return fs.existsSync(d) ? fs.readdirSync(d).sort().map((f) => join(d, f)) : [];
}

/** The main-conversation requests received since `from`. */
export function mainSince(requests: readonly RecordedRequest[], from: number): RecordedRequest[] {
  return requests.slice(from).filter((r) => r.main);
}

/**
 * A first run's publish by CAS, as every agent's e2e checks it: the newest block the first
 * request showed names the session (its id matching `idPattern`), the last request carries
 * the publisher's ok receipt one revision up, and the pointer is CLEAN with `text`. Returns
 * the session id.
 */
export function assertFirstPublish(user: User, main: readonly RecordedRequest[], text: string, idPattern: RegExp = /^[0-9a-f-]{36}$/): string {
  const shown = newestPointerBlock(main[0].text);
  assert.ok(shown, 'the first request shows a pointer block');
  const id = shown.fields.SESSION_ID;
  assert.match(id, idPattern);
  const last = main.at(-1)!.lastUserText;
  const receipt = receiptIn(last);
  assert.equal(receipt?.ok, true, `receipt: ${last}`);
  assert.equal(receipt.revision, Number(shown.fields.REVISION) + 1);
  const state = pointerState(user, id);
  assert.equal(state.status, 'CLEAN');
  assert.equal(state.pointer_text, text);
  return id;
}
