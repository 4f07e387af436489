// The prompt archive rides with the pointer's DIRTY mark: one write and one fsync for both,
// and the prompt is still archived when the pointer writes nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, readJsonl, tmpDir } from './helpers.ts';

const SID = '11111111-2222-4333-8444-555555555555';
const hook = (home: string, payload: Record<string, unknown>) =>
  baton(['hook', 'claude'], { home, input: JSON.stringify({ session_id: SID, cwd: home, ...payload }) });

test('a prompt on a CLEAN pointer writes prompt.submitted and pointer.published in one append', () => {
  const home = tmpDir();
  assert.equal(hook(home, { hook_event_name: 'SessionStart', source: 'startup' }).code, 0);
  assert.equal(hook(home, { hook_event_name: 'UserPromptSubmit', prompt: 'first' }).code, 0);
  const state = readJsonl(join(home, 'sessions', SID, 'state.json'))[0];
  const req = { schema_version: 3, session_id: SID, expected_generation: state.generation, expected_revision: state.revision, task_id: '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f', target_status: 'CLEAN', pointer_text: 'Goal: g\nNext: n' };
  assert.equal(baton(['pointer', 'publish'], { home, input: JSON.stringify(req) }).code, 0);
  assert.equal(hook(home, { hook_event_name: 'UserPromptSubmit', prompt: 'second' }).code, 0);
  const events = readJsonl(join(home, 'sessions', SID, 'events.jsonl'));
  const p = events.findIndex((e) => e.type === 'prompt.submitted' && e.payload.text === 'second');
  assert.ok(p > 0);
  const next = events[p + 1];
  assert.equal(next.type, 'pointer.published');
  assert.equal(next.payload.status, 'DIRTY');
  assert.equal(next.ts, events[p].ts, 'written by the same append');
  assert.equal(events.filter((e) => e.type === 'prompt.submitted').length, 2);
  // A repeated prompt while DIRTY: the pointer writes nothing, the prompt is archived alone.
  assert.equal(hook(home, { hook_event_name: 'UserPromptSubmit', prompt: 'third' }).code, 0);
  const after = readJsonl(join(home, 'sessions', SID, 'events.jsonl'));
  assert.equal(after.length, events.length + 1);
  assert.equal(after[after.length - 1].payload.text, 'third');
  const m = JSON.parse(readFileSync(join(home, 'sessions', SID, 'manifest.json'), 'utf8'));
  assert.equal(m.status.last_event_seq, after.length, 'the manifest follows every append');
  assert.equal(baton(['session', 'verify', SID], { home }).code, 0);
});
