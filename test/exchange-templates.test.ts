// `session archive --retro-template NAME`: templates in <home>/templates/, the built-ins, and
// WS402 for an unknown name before anything is written. The real binary, a temporary store.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';

const ME = { BATON_INSTANCE: 'tester' };
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function session(): { home: string; id: string } {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  dirs.push(home, ws);
  const b = (args: string[], input?: string): void => {
    const r = baton(args, { home, env: ME, input });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  };
  b(['session', 'new', 'Templated', '--id', 'tpl', '--cwd', ws]);
  b(['session', 'append', 'tpl', '--text', 'Decided: JSONL is canonical']);
  b(['session', 'append', 'tpl', '--text', 'Should TOML be canonical?']);
  b(['session', 'append', 'tpl', '--text', 'plain progress note']);
  b(['pointer', 'publish'], JSON.stringify({ schema_version: 3, session_id: 'tpl', expected_generation: 'ABSENT', expected_revision: 0, task_id: '3f1c9a52-8d3b-4e2a-9c1d-2b7e5f6a8c90', target_status: 'CLEAN', pointer_text: 'Goal: ship exchange\nNext: write the docs' }));
  b(['session', 'release', 'tpl']);
  return { home, id: 'tpl' };
}

test('an unknown or unsafe template name is WS402, listing the templates, and nothing is written', () => {
  const { home } = session();
  fs.mkdirSync(join(home, 'templates'));
  fs.writeFileSync(join(home, 'templates', 'team.md'), '# {{title}}\n');
  const before = treeHash(home);
  for (const name of ['nope', '../templates/team', 'team.md']) {
    const r = baton(['session', 'archive', 'tpl', '--retro-template', name, '--json'], { home, env: ME });
    assert.equal(r.code, 2, name);
    assert.equal(r.json.error.code, 'WS402', name);
    assert.deepEqual(r.json.error.templates, ['brief', 'default', 'team']);
    assert.match(r.stderr, /^baton: WS402 /);
  }
  assert.equal(treeHash(home), before);
});

test('a template in <home>/templates fills goal, next, pointer, decisions, open questions, artifacts and episodes', () => {
  const { home } = session();
  fs.mkdirSync(join(home, 'templates'));
  fs.writeFileSync(
    join(home, 'templates', 'team.md'),
    '# {{ title }} ({{id}})\nGoal: {{goal}}\nNext: {{next}}\n## Decided\n{{decisions}}\n## Open\n{{open_questions}}\n## Files\n{{artifacts}}\n## Runs\n{{episodes}}\n{{not_a_part}}',
  );
  const r = baton(['session', 'archive', 'tpl', '--retro-template', 'team', '--json'], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  const retro = fs.readFileSync(join(home, 'sessions', 'tpl', 'retrospective.md'), 'utf8');
  assert.match(retro, /^# Templated \(tpl\)\nGoal: ship exchange\nNext: write the docs\n## Decided\n- seq \d+ \(.+\): Decided: JSONL is canonical\n## Open\n- seq \d+ \(.+\): Should TOML be canonical\?\n## Files\nnone\n## Runs\nnone\n\{\{not_a_part\}\}\n$/);
  assert.ok(!retro.includes('plain progress note'), 'only the parts the template asks for');
});

test('the built-in default has every part; brief leaves out decisions, questions and context', () => {
  const { home } = session();
  assert.equal(baton(['session', 'archive', 'tpl'], { home, env: ME }).code, 0);
  const retro = fs.readFileSync(join(home, 'sessions', 'tpl', 'retrospective.md'), 'utf8');
  for (const h of ['## Goal and pointer', '## Decisions', '## Open questions', '## Context', '## Artifacts', '## Episodes']) assert.ok(retro.includes(`\n${h}\n`), h);
  assert.match(retro, /## Decisions\n\n- seq \d+ .*Decided: JSONL is canonical\n\n## Open questions\n\n- seq \d+ .*Should TOML be canonical\?\n/);
  const b = session();
  assert.equal(baton(['session', 'archive', 'tpl', '--retro-template', 'brief'], { home: b.home, env: ME }).code, 0);
  const brief = fs.readFileSync(join(b.home, 'sessions', 'tpl', 'retrospective.md'), 'utf8');
  assert.ok(brief.includes('Goal: ship exchange'));
  assert.ok(!brief.includes('## Context') && !brief.includes('## Decisions'));
});
