// Tests clean up: every folder test/helpers.ts's tmpDir made is gone when the test file's
// process exits, whether its tests passed or threw.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, tmpDir } from './helpers.ts';

function runChild(body: string, tmp: string): { made: string[]; status: number | null } {
  const script = `import { tmpDir, agentWorld } from ${JSON.stringify(join(ROOT, 'test', 'helpers.ts'))};\n${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
  return { made: r.stdout.split('\n').filter(Boolean), status: r.status };
}

test('tmpDir folders (and agent worlds) are removed when the process exits, also after a throw', () => {
  const tmp = tmpDir();
  const ok = runChild("const a = tmpDir(); const w = agentWorld(); console.log(a); console.log(w.root);", tmp);
  assert.equal(ok.status, 0);
  assert.equal(ok.made.length, 2);
  const thrown = runChild("const a = tmpDir(); console.log(a); throw new Error('a failing test file');", tmp);
  assert.notEqual(thrown.status, 0);
  for (const d of [...ok.made, ...thrown.made]) {
    assert.ok(d.startsWith(tmp), d);
    assert.equal(fs.existsSync(d), false, d);
  }
  assert.deepEqual(
    fs.readdirSync(tmp).filter((n) => n.startsWith('baton-')),
    [],
  );
});
