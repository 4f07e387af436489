// The import's check of a transcript.item payload (itemPayloadProblem, src/core/transcript.ts) is
// written by hand so the hook-side module needs no schema library; zod's schema
// (src/schemas/event.ts) stays the one source of the item's shape. This holds the two together:
// every change of shape one refuses, the other refuses too; what the check refuses beyond the
// schema is the bounds transcripts.md gives (text, tool input, files), which the schema only names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ITEM_LIMITS, itemPayloadProblem } from '../src/core/transcript.ts';
import { EventPayloads } from '../src/schemas/event.ts';

const ITEM = EventPayloads['transcript.item'];
const good = {
  agent: 'codex',
  agent_session: 's-1',
  item_id: 'i-1',
  at: '2026-05-27T07:00:00.000Z',
  role: 'assistant',
  kind: 'tool_call',
  text: '',
  tool: { name: 'exec_command', call_id: 'c-1', input: { cmd: 'ls' } },
  files: ['a.ts'],
  model: 'gpt-5',
  usage: { input: 1, output: 2, cache_read: 0, cache_write: 0 },
  truncated: { original_bytes: 40_000, sha256: 'a'.repeat(64) },
  supersedes: 3,
};

test('the check and the schema agree on every change of shape; the check alone holds the bounds', () => {
  assert.equal(itemPayloadProblem(good), null);
  assert.ok(ITEM.safeParse(good).success);
  const without = (k: string) => Object.fromEntries(Object.entries(good).filter(([x]) => x !== k));
  const shape: [string, Record<string, unknown>][] = [
    ['unknown field', { ...good, injected: 1 }],
    ...['agent', 'agent_session', 'item_id', 'at', 'role', 'kind', 'text'].map((k): [string, Record<string, unknown>] => [`no ${k}`, without(k)]),
    ['agent', { ...good, agent: 'other' }],
    ['empty item id', { ...good, item_id: '' }],
    ['at without ms', { ...good, at: '2026-05-27T07:00:00Z' }],
    ['role', { ...good, role: null }],
    ['kind', { ...good, kind: 'thought' }],
    ['text object', { ...good, text: { a: 1 } }],
    ['truncated', { ...good, truncated: { original_bytes: -1, sha256: 'x' } }],
    ['truncated extra', { ...good, truncated: { original_bytes: 1, sha256: 'a'.repeat(64), more: 1 } }],
    ['tool extra', { ...good, tool: { name: 'x', call_id: 'y', other: 1 } }],
    ['tool name', { ...good, tool: { name: 1, call_id: 'y' } }],
    ['files string', { ...good, files: 'a.ts' }],
    ['files empty path', { ...good, files: [''] }],
    ['files over 64', { ...good, files: Array.from({ length: ITEM_LIMITS.files + 1 }, (_, i) => `f${i}`) }],
    ['model empty', { ...good, model: '' }],
    ['usage other key', { ...good, usage: { tokens: 1 } }],
    ['usage negative', { ...good, usage: { input: -1 } }],
    ['supersedes 0', { ...good, supersedes: 0 }],
    ['supersedes text', { ...good, supersedes: '3' }],
  ];
  for (const [what, p] of shape) {
    assert.notEqual(itemPayloadProblem(p), null, `the check takes ${what}`);
    assert.equal(ITEM.safeParse(p).success, false, `the schema takes ${what}`);
  }
  const bounds: [string, Record<string, unknown>][] = [
    ['text over 32 KiB', { ...good, kind: 'message', tool: undefined, text: 'x'.repeat(ITEM_LIMITS.text + 1) }],
    ['tool result over 8 KiB', { ...good, role: 'tool', kind: 'tool_result', text: 'x'.repeat(ITEM_LIMITS.toolResult + 1) }],
    ['input over 4 KiB', { ...good, tool: { name: 'x', call_id: 'y', input: { cmd: 'y'.repeat(ITEM_LIMITS.toolInput) } } }],
    ['an id over 256 bytes', { ...good, item_id: 'i'.repeat(ITEM_LIMITS.id + 1) }],
  ];
  for (const [what, raw] of bounds) {
    const p = JSON.parse(JSON.stringify(raw));
    assert.notEqual(itemPayloadProblem(p), null, `the check holds the bound: ${what}`);
  }
});
