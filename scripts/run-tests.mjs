// Runs every test file under test/ (not test/e2e/) through tsx with Node's test runner.
// Node 20's --test has no globbing and exits 0 on no files, so the list is explicit and must not be empty.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'e2e' && name !== 'fixtures') find(p, out);
    } else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}
const only = process.argv.slice(2);
const files = only.length ? only : find('test', []);
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
