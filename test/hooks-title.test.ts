// A session a hook creates at start is titled `<provider> <short id>`; its first prompt
// replaces that with the prompt's first line (redacted, at most 60 characters), recorded by
// one session.titled event. A title a person gave is never replaced.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, readJsonl, tmpDir } from './helpers.ts';

function hook(home: string, cwd: string, payload: Record<string, unknown>, env: Record<string, string> = {}) {
  const r = baton(['hook', 'claude'], { home, cwd, env, input: JSON.stringify({ transcript_path: '/dev/null', cwd, ...payload }) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
}

const events = (home: string, id: string) => readJsonl(join(home, 'sessions', id, 'events.jsonl'));

test('the first prompt titles a session the start event created; later prompts do not', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  const sid = randomUUID();
  hook(home, cwd, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup' });
  assert.equal(events(home, sid)[0].payload.title, `claude ${sid.slice(0, 8)}`);
  hook(home, cwd, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: '\n  Fix the login redirect loop  \nand add a test' });
  hook(home, cwd, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'Now something else entirely' });
  const titled = events(home, sid).filter((e) => e.type === 'session.titled');
  assert.equal(titled.length, 1);
  assert.deepEqual(titled[0].payload, { title: 'Fix the login redirect loop', from: 'prompt' });
  assert.equal(titled[0].surface, 'hook:claude');
  const list = baton(['session', 'list', '--json'], { home, cwd });
  assert.equal(list.json.sessions[0].title, 'Fix the login redirect loop');
  const show = baton(['session', 'show', sid, '--json'], { home });
  assert.equal(show.json.manifest.title, 'Fix the login redirect loop');
  assert.equal(baton(['session', 'verify', sid], { home }).code, 0, 'the log with session.titled verifies');
});

test('the title is redacted and cut to 60 characters', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  const sid = randomUUID();
  hook(home, cwd, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup' });
  const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEFGH';
  hook(home, cwd, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: `use ${secret} to call the API and then refactor the whole retry module carefully` });
  const t = events(home, sid).find((e) => e.type === 'session.titled').payload.title as string;
  assert.ok(!t.includes(secret) && !t.includes('abcdefghijklmnop'), t);
  assert.ok(t.length <= 60, `${t.length}: ${t}`);
  assert.ok(t.endsWith('…'));
  assert.ok(!fs.readFileSync(join(home, 'sessions', sid, 'events.jsonl'), 'utf8').includes(secret));
});

test('a title a person gave is never replaced', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  assert.equal(baton(['session', 'new', 'My own title', '--id', 'mine', '--cwd', cwd], { home }).code, 0);
  assert.equal(baton(['session', 'release', 'mine'], { home }).code, 0);
  const sid = randomUUID();
  const env = { BATON_SESSION: 'mine' };
  hook(home, cwd, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup' }, env);
  hook(home, cwd, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'Some prompt' }, env);
  assert.equal(events(home, 'mine').filter((e) => e.type === 'session.titled').length, 0);
  assert.equal(baton(['session', 'show', 'mine', '--json'], { home }).json.manifest.title, 'My own title');
});

test('a session the first prompt creates takes its title at creation (no session.titled)', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  const sid = randomUUID();
  hook(home, cwd, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'Write the changelog' });
  const evs = events(home, sid);
  assert.equal(evs[0].payload.title, 'Write the changelog');
  assert.equal(evs.filter((e) => e.type === 'session.titled').length, 0);
});

test('an episode cache written before titles were folded is read again from the log', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  const sid = randomUUID();
  hook(home, cwd, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup' });
  const cache = join(home, 'sessions', sid, 'episodes.json');
  const old = JSON.parse(fs.readFileSync(cache, 'utf8'));
  delete old.title;
  fs.writeFileSync(cache, JSON.stringify(old));
  hook(home, cwd, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'Titled after all' });
  assert.equal(events(home, sid).find((e) => e.type === 'session.titled')?.payload.title, 'Titled after all');
});
