// `npm run test:e2e` (after the build): installs the pinned agent programs into the
// git-ignored .e2e/agents from the npm registry (skipped when those versions are already
// there), then runs the e2e test files, listed explicitly (Node 20's --test has no globbing
// and passes on an empty list, so an empty list fails here).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const AGENTS_DIR = join('.e2e', 'agents');
const PINNED = { '@anthropic-ai/claude-code': '2.1.328', '@google/gemini-cli': '0.61.0', '@openai/codex': '0.171.0', '@qwen-code/qwen-code': '0.24.4', '@github/copilot': '1.0.102',
  // opencode, and the plugin package its first start would npm-install into its config folder (test/e2e/agents.ts links it there instead).
  'opencode-ai': '1.18.33',
  '@opencode-ai/plugin': '1.18.33',
  '@kilocode/cli': '7.7.7',
  '@mariozechner/pi-coding-agent': '0.73.1',
  // @factory/cli 0.225.1 runs the binary of @factory/cli-linux-x64 0.225.2.
  '@factory/cli': '0.225.1',
  '@factory/cli-linux-x64': '0.225.2',
};

function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(join(AGENTS_DIR, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

const missing = Object.entries(PINNED).filter(([pkg, v]) => installedVersion(pkg) !== v);
if (missing.length) {
  mkdirSync(AGENTS_DIR, { recursive: true });
  const specs = Object.entries(PINNED).map(([pkg, v]) => `${pkg}@${v}`);
  console.error(`run-e2e: installing ${specs.join(' ')} into ${AGENTS_DIR}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', AGENTS_DIR, '--no-save', '--no-audit', '--no-fund', ...specs], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('run-e2e: installing the agent programs failed');
    process.exit(r.status ?? 1);
  }
  const still = Object.entries(PINNED).filter(([pkg, v]) => installedVersion(pkg) !== v);
  if (still.length) {
    console.error(`run-e2e: not installed at the pinned version: ${still.map(([p]) => p).join(', ')}`);
    process.exit(1);
  }
}
for (const bin of ['claude', 'gemini', 'codex', 'qwen', 'copilot', 'opencode', 'kilo', 'pi', 'droid']) {
  if (!existsSync(join(AGENTS_DIR, 'node_modules', '.bin', bin))) {
    console.error(`run-e2e: ${bin} is missing from ${AGENTS_DIR}/node_modules/.bin`);
    process.exit(1);
  }
}

const only = process.argv.slice(2);
const files = only.length
  ? only
  : readdirSync(join('test', 'e2e'))
      .filter((f) => f.endsWith('.test.ts'))
      .sort()
      .map((f) => join('test', 'e2e', f));
if (files.length === 0) {
  console.error('run-e2e: no test files found in test/e2e');
  process.exit(1);
}
// One file at a time: each scenario already runs a whole agent program, and the machine is shared.
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
