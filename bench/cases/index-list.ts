// index.list and index.list.floor (bench.md): one `session list --all --limit 50 --json`
// process over 10,000 sessions (quick: 1,000), each run right after 100 sessions were
// appended to by another process (so every measured run catches up), against (a) a naive
// lister process that opens every log, reads its first and last line and sorts by last
// event, target ratio ≤ 0.25; (b) `node -e 0`, target ratio ≤ 2.0.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { indexFixture } from '../index-fixture.ts';
import { interleaved, prng, runProcess, timeProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const NAIVE = `
const fs = require('fs'), path = require('path');
const root = path.join(process.argv[1], 'sessions');
const buf = Buffer.allocUnsafe(65536);
const rows = [];
for (const id of fs.readdirSync(root)) {
  let fd;
  try { fd = fs.openSync(path.join(root, id, 'events.jsonl'), 'r'); } catch { continue; }
  try {
    const size = fs.fstatSync(fd).size;
    let n = fs.readSync(fd, buf, 0, Math.min(buf.length, size), 0);
    const first = JSON.parse(buf.toString('utf8', 0, buf.indexOf(10)));
    const from = Math.max(0, size - buf.length);
    n = fs.readSync(fd, buf, 0, size - from, from);
    const end = buf.lastIndexOf(10, n - 2);
    const last = JSON.parse(buf.toString('utf8', end + 1, n - 1));
    rows.push({ id, title: first.payload.title, workspace: first.payload.workspace.cwd, last_touched_at: last.ts, events: last.seq });
  } finally { fs.closeSync(fd); }
}
rows.sort((a, b) => (a.last_touched_at < b.last_touched_at ? 1 : -1));
process.stdout.write(JSON.stringify(rows.slice(0, 50)) + '\\n');
`;

function appender(root: string): string {
  return `
const { FsStore } = require(${JSON.stringify(join(root, 'dist', 'lib.cjs'))});
const [home, ...ids] = process.argv.slice(1);
const store = new FsStore(home);
const writer = { surface: 'hook:claude', instanceId: 'hook:claude:bench', actor: 'user' };
for (const id of ids) store.append(id, { type: 'prompt.submitted', surface: 'hook:claude', actor: 'user', payload: { episode: 'ep-bench', text: 'one more prompt from another process', digest: 'd' } }, writer);
`;
}

const indexList: BenchCase = {
  name: 'index.list',
  async run(ctx): Promise<CaseResult[]> {
    const sessions = ctx.quick ? 1000 : 10_000;
    const fx = indexFixture(sessions, 100);
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env = { BATON_HOME: fx.home, NO_COLOR: '1' };
    const args = [bin, 'session', 'list', '--all', '--limit', '50', '--json'];
    if (!fs.existsSync(join(fx.home, 'baton.db'))) runProcess(process.execPath, [bin, 'index', 'rebuild'], env);
    const ids = fs.readdirSync(join(fx.home, 'sessions')).sort();
    const rng = prng(0x1157);
    const appendSome = (): void => {
      const pick = new Set<string>();
      while (pick.size < 100) pick.add(ids[Math.floor(rng() * ids.length)]);
      runProcess(process.execPath, ['-e', appender(ctx.root), fx.home, ...pick]);
    };
    // A checked run: the listing is complete and newest first.
    appendSome();
    const check = runProcess(process.execPath, args, env, { stdout: 'pipe' });
    const doc = JSON.parse(check.stdout);
    const listed: { last_touched_at: string }[] = Array.isArray(doc) ? doc : doc.sessions;
    const sorted = listed.length === 50 && listed.every((s, i) => i === 0 || listed[i - 1].last_touched_at >= s.last_touched_at);
    timeProcess(process.execPath, ['-e', NAIVE, fx.home]);
    const pairs = ctx.quick ? 5 : 7;
    const ours = () => {
      appendSome();
      return timeProcess(process.execPath, args, env);
    };
    const naive = await interleaved(pairs, ours, () => timeProcess(process.execPath, ['-e', NAIVE, fx.home]));
    const floor = await interleaved(pairs, ours, () => timeProcess(process.execPath, ['-e', '0']));
    return [
      {
        name: 'index.list',
        ours: naive.a,
        baseline: naive.b,
        ratio: naive.ratio,
        unit: 'ms',
        target: 'ratio <= 0.25',
        pass: naive.ratio <= 0.25 && sorted,
        details: { sessions, appended_before_each_run: 100, listed: listed.length, sorted, ratios: naive.ratios },
      },
      {
        name: 'index.list.floor',
        ours: floor.a,
        baseline: floor.b,
        ratio: floor.ratio,
        unit: 'ms',
        target: 'ratio <= 2.0',
        pass: floor.ratio <= 2.0 && sorted,
        details: { sessions, ratios: floor.ratios },
      },
    ];
  },
};

export default indexList;
