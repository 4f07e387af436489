// Projects (index.md): discovered per git root (else cwd) with a stable id, untrusted by
// default; project add/trust/untrust; a manual project preferred over a discovered one.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { projectId } from '../src/index/projects.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { makeSession } from './index-helpers.ts';

interface P {
  id: string;
  path: string;
  source: string;
  trust: string;
  sessions: number;
}

test('projects are discovered per git root (else cwd), untrusted, with a stable id and session counts', () => {
  const home = tmpDir();
  const repo = tmpDir('baton-repo-');
  const plain = tmpDir('baton-ws-');
  fs.mkdirSync(join(repo, 'pkg/sub'), { recursive: true });
  makeSession(home, 'root', repo, { gitRoot: repo });
  makeSession(home, 'deep', join(repo, 'pkg/sub'), { gitRoot: repo });
  makeSession(home, 'plain', plain);
  const r = baton(['project', 'list', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  const list = r.json.projects as P[];
  assert.deepEqual(
    list.map((p) => [p.path, p.source, p.trust, p.sessions]),
    [
      [repo, 'discovered', 'untrusted', 2],
      [plain, 'discovered', 'untrusted', 1],
    ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1)),
  );
  assert.equal(list.find((p) => p.path === repo)?.id, projectId(repo));
  assert.match(projectId(repo), /^[0-9a-f]{16}$/);
});

test('trust and untrust a discovered project; the decision survives deleting the index', () => {
  const home = tmpDir();
  const repo = tmpDir('baton-repo-');
  makeSession(home, 'root', repo, { gitRoot: repo });
  assert.equal(baton(['project', 'trust', repo], { home }).code, 0);
  for (const f of ['baton.db', 'baton.db-wal', 'baton.db-shm']) fs.rmSync(join(home, f), { force: true });
  let p = (baton(['project', 'list', '--json'], { home }).json.projects as P[]).find((x) => x.path === repo);
  assert.equal(p?.trust, 'trusted');
  assert.equal(baton(['project', 'untrust', repo], { home }).code, 0);
  p = (baton(['project', 'list', '--json'], { home }).json.projects as P[]).find((x) => x.path === repo);
  assert.equal(p?.trust, 'untrusted');
});

test('a manual project is preferred over a discovered one below it', () => {
  const home = tmpDir();
  const top = tmpDir('baton-mono-');
  const repo = join(top, 'repo');
  fs.mkdirSync(repo);
  makeSession(home, 'inside', repo, { gitRoot: repo });
  const add = baton(['project', 'add', top, '--trust', '--json'], { home });
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.json.id, projectId(top));
  const list = baton(['project', 'list', '--json'], { home }).json.projects as P[];
  assert.deepEqual(
    list.map((p) => [p.path, p.source, p.trust, p.sessions]),
    [[top, 'manual', 'trusted', 1]],
  );
});

test('trusting an unknown or missing path is refused and changes nothing', () => {
  const home = tmpDir();
  makeSession(home, 'x', tmpDir('baton-ws-'));
  baton(['project', 'list'], { home });
  const before = treeHash(home);
  const unknown = tmpDir('baton-elsewhere-');
  const r = baton(['project', 'trust', unknown, '--json'], { home });
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'USAGE');
  assert.equal(baton(['project', 'add', join(unknown, 'missing')], { home }).code, 2);
  assert.equal(treeHash(home), before);
});
