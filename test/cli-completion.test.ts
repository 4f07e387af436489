// `baton completion bash|zsh|fish` is made from the command tree: bash completes every
// command path and its options (run in a real bash), an unknown shell is USAGE.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir } from './helpers.ts';

function complete(script: string, words: string[]): string[] {
  const dir = tmpDir();
  fs.writeFileSync(join(dir, 'c.bash'), script);
  const arr = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync('bash', ['-c', `source ${join(dir, 'c.bash')}; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _baton; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

test('bash completion offers the commands, subcommands and options of the program at each level', () => {
  const r = baton(['completion', 'bash']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(complete(r.stdout, ['baton', 'se']), ['session', 'search', 'serve']);
  assert.deepEqual(complete(r.stdout, ['baton', 'session', 'ar']), ['artifact', 'archive']);
  assert.deepEqual(complete(r.stdout, ['baton', '--home', '/tmp/h', 'session', 'artifact', '']).sort(), ['--help', '--home', '--json', '--quiet', 'add', 'rm']);
  assert.ok(complete(r.stdout, ['baton', 'session', 'resume', '--']).includes('--last'));
  assert.ok(complete(r.stdout, ['baton', 'session', 'new', '--']).includes('--allow'));
  assert.deepEqual(complete(r.stdout, ['baton', 'completion', '']).sort(), ['--help', '--home', '--json', '--quiet']);
});

test('zsh reuses the bash script through bashcompinit; fish gets one complete line per word; another shell is USAGE', () => {
  const z = baton(['completion', 'zsh']);
  assert.equal(z.code, 0);
  assert.match(z.stdout, /bashcompinit/);
  assert.match(z.stdout, /complete -o default -F _baton baton/);
  const f = baton(['completion', 'fish']);
  assert.equal(f.code, 0);
  assert.match(f.stdout, /complete -c baton -f -n '__baton_at '\\''session'\\''' -a 'resume'/);
  assert.match(f.stdout, /complete -c baton -n '__baton_at '\\''session resume'\\''' -l last/);
  const bad = baton(['completion', 'tcsh', '--json']);
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.code, 'USAGE');
});
