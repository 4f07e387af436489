// Every method of server.md's table over both transports (stdio and WebSocket), through the
// real `baton serve` and the built baton/client: results checked against the protocol's
// result schemas and against what the CLI prints for the same question; each refusal
// carries baton's code and leaves the sessions folder byte-for-byte unchanged.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { METHODS, type MethodName } from '../src/schemas/protocol.ts';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';
import { type RunningServer, rawOver, startServer, stdioClient, until, wsClient } from './server-helpers.ts';
import type { BatonClient } from '../src/client/index.ts';

const CLI = { BATON_INSTANCE: 'cli-tester' };

/** Calls a method and checks its result against the protocol's result schema. */
async function call<M extends MethodName>(c: BatonClient, method: M, params: unknown): Promise<any> {
  const r = await c.request(method, params);
  const parsed = METHODS[method].result.safeParse(r);
  assert.ok(parsed.success, `${method} result does not match its schema: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))}`);
  return r;
}

/**
 * The sessions folder, less the machinery of the store's mutex (a long-lived process keeps its
 * parked `.mutex.<host>.<pid>.<nonce>` token, rewritten at each hold, refusals included) and the
 * log verification cache (`.verified`, refreshed by a reader after another process appended).
 */
const storeHash = (home: string): string => treeHash(join(home, 'sessions'), (n) => n === '.verified' || n.startsWith('.mutex'));

/** Expects a -32000 refusal with baton's code, and the sessions folder unchanged by it. */
async function refused(home: string, p: () => Promise<unknown>, code: string): Promise<any> {
  const before = storeHash(home);
  const err = await p().then(
    () => assert.fail(`expected a ${code} refusal`),
    (e) => e,
  );
  assert.equal(err.code, -32000, `${err.message}`);
  assert.equal(err.data?.code, code, `${err.message}`);
  assert.equal(typeof err.data?.message, 'string');
  assert.equal(typeof err.data?.details, 'object');
  assert.equal(storeHash(home), before, `the refusal (${code}) changed nothing on disk`);
  return err;
}

for (const kind of ['stdio', 'ws'] as const) {
  describe(`baton serve over ${kind}`, () => {
    let home: string;
    let ws: string;
    let server: RunningServer | null = null;
    let c: BatonClient;
    const clients: BatonClient[] = [];
    const open = async (name = 'tester', surface?: 'api' | 'web' | 'ide-skill'): Promise<BatonClient> => {
      const x = kind === 'ws' ? await wsClient(server as RunningServer, name, surface) : await stdioClient(home, name, surface);
      clients.push(x);
      return x;
    };

    before(async () => {
      home = tmpDir();
      ws = tmpDir('baton-ws-');
      // A store with something in it, made by the CLI.
      assert.equal(baton(['session', 'new', 'Seeded by the CLI', '--id', 'cli-1', '--cwd', ws], { home, env: CLI }).code, 0);
      if (kind === 'ws') server = await startServer(home);
      c = await open();
    });

    after(async () => {
      for (const x of clients) x.close();
      if (server) assert.equal(await server.stop(), 0, 'SIGTERM is a clean exit');
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(ws, { recursive: true, force: true });
    });

    test('nothing but initialize is answered before initialize/initialized', async () => {
      const { BatonClient } = await import('baton/client' as string);
      const { BIN } = await import('./helpers.ts');
      const { envFor } = await import('./server-helpers.ts');
      const WebSocket = (await import('ws')).default;
      const fresh: BatonClient =
        kind === 'ws'
          ? await BatonClient.connect((server as RunningServer).wsUrl, { token: (server as RunningServer).token, WebSocket })
          : await BatonClient.spawn({ command: process.execPath, args: [BIN, 'serve', '--stdio'], env: envFor(home) });
      clients.push(fresh);
      await refused(home, () => fresh.threadList({}), 'NOT_INITIALIZED');
      const init = await fresh.request('initialize', { clientInfo: { name: 'late', version: '1' } });
      assert.ok(METHODS.initialize.result.safeParse(init).success);
      assert.equal((init as any).protocolVersion, '1');
      // initialize answered, initialized not yet sent: still refused.
      await refused(home, () => fresh.threadList({}), 'NOT_INITIALIZED');
      fresh.notify('initialized', {});
      assert.ok(Array.isArray((await fresh.threadList({})).data));
      const again: any = await fresh.request('initialize', { clientInfo: { name: 'late', version: '1' } }).catch((e) => e);
      assert.equal(again.code, -32600, 'a second initialize is an invalid request');
    });

    test('thread/start writes as the connection surface with a stable instance id; a bad cwd is refused', async () => {
      const r = await call(c, 'thread/start', { title: 'Started over RPC', cwd: ws, id: `rpc-${kind}`, taskId: 'T-1' });
      assert.equal(r.thread.id, `rpc-${kind}`);
      assert.equal(r.thread.manifest.created_by, 'api');
      assert.equal(r.thread.lease.holder.surface, 'api');
      assert.match(r.thread.lease.holder.instance_id, /^api@tester@/);
      assert.equal(r.thread.lease.valid, true);
      const events = readJsonl(join(home, 'sessions', `rpc-${kind}`, 'events.jsonl'));
      assert.deepEqual(
        events.map((e) => [e.type, e.surface]),
        [
          ['session.created', 'api'],
          ['lock.acquired', 'api'],
        ],
      );
      await refused(home, () => c.threadStart({ title: 'x', cwd: join(ws, 'missing') }), 'USAGE');
      await refused(home, () => c.threadStart({ title: 'x', cwd: ws, id: `rpc-${kind}` }), 'WS004');
      await refused(home, () => c.threadStart({ title: 'x', cwd: ws, id: 'has space' }), 'WS003');
    });

    test('context/append needs the lease: the holder appends, another client is refused (WS101), the web surface too', async () => {
      const r = await call(c, 'context/append', { threadId: `rpc-${kind}`, text: 'a decision', tags: ['db'] });
      assert.equal(r.event.type, 'context.appended');
      assert.equal(r.event.seq, 3);
      assert.match(r.event.h, /^[0-9a-f]{32}$/);
      assert.deepEqual(r.event.payload, { text: 'a decision', tags: ['db'] });
      const other = await open('someone-else', 'web');
      await refused(home, () => other.contextAppend({ threadId: `rpc-${kind}`, text: 'not mine' }), 'WS101');
      await refused(home, () => c.contextAppend({ threadId: `rpc-${kind}`, text: 'x', type: 'bogus.type' }), 'WS204');
      await refused(home, () => c.contextAppend({ threadId: 'nope-nothing', text: 'x' }), 'WS001');
      // A session that allows only the CLI refuses the server's surface (store.md, allowed runtimes).
      assert.equal(baton(['session', 'new', 'CLI only', '--id', `only-cli-${kind}`, '--allow', 'cli', '--cwd', ws], { home, env: CLI }).code, 0);
      assert.equal(baton(['session', 'release', `only-cli-${kind}`], { home, env: CLI }).code, 0);
      await refused(home, () => c.threadResume({ threadId: `only-cli-${kind}` }), 'WS302');
    });

    test('a lease taken over one connection is renewed over the next one of the same client name', async () => {
      const again = await open('tester');
      const r = await call(again, 'thread/renew', { threadId: `rpc-${kind}`, lease: '20m' });
      assert.equal(r.threadId, `rpc-${kind}`);
      assert.ok(Date.parse(r.leaseUntil) > Date.now() + 15 * 60_000);
      const bad = await again.threadRenew({ threadId: `rpc-${kind}`, lease: 'forever' }).catch((e) => e);
      assert.equal(bad.code, -32602, 'a duration is checked at the edge');
    });

    test('thread/resume: workspacePath is checked (WS004), used, recorded in session.resumed only', async () => {
      const id = `resume-${kind}`;
      assert.equal(baton(['session', 'new', 'To resume', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
      assert.equal(baton(['session', 'release', id], { home, env: CLI }).code, 0);
      await refused(home, () => c.threadResume({ threadId: id, workspacePath: join(ws, 'nope') }), 'WS004');
      const other = tmpDir('baton-other-');
      try {
        const r = await call(c, 'thread/resume', { threadId: id, workspacePath: other });
        assert.equal(r.workspace, other);
        assert.equal(r.thread.workspaceOverride, other);
        assert.equal(r.thread.manifest.workspace.cwd, ws, 'the origin is unchanged');
        assert.match(r.context, /To resume/);
        const events = readJsonl(join(home, 'sessions', id, 'events.jsonl'));
        const resumed = events.find((e) => e.type === 'session.resumed');
        assert.equal(resumed.payload.workspace_override, other);
        assert.equal(events[0].payload.workspace.cwd, ws);
        const manifest = JSON.parse(fs.readFileSync(join(home, 'sessions', id, 'manifest.json'), 'utf8'));
        assert.equal(manifest.workspace.cwd, ws, 'manifest keeps the origin');
        // Held now by this client: the CLI is refused, the server's read shows the holder.
        const cli = baton(['session', 'append', id, '--text', 'x', '--json'], { home, env: CLI });
        assert.equal(cli.json?.error?.code, 'WS101');
        const read = await call(c, 'thread/read', { threadId: id, includeEvents: { after: 0 } });
        assert.equal(read.thread.lease.holder.surface, 'api');
        assert.equal(read.events.events.length, events.length);
        assert.equal(read.events.hasMore, false);
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    });

    test('thread/release, then thread/archive; an archived thread refuses writes (WS002)', async () => {
      const id = `resume-${kind}`;
      await refused(home, () => c.threadArchive({ threadId: id }), 'WS101');
      const rel = await call(c, 'thread/release', { threadId: id });
      assert.equal(rel.threadId, id);
      const other = await open('someone-else');
      await refused(home, () => other.threadRelease({ threadId: id }), 'WS100');
      const ar = await call(c, 'thread/archive', { threadId: id, retroTemplate: 'brief' });
      assert.ok(fs.existsSync(ar.retrospective));
      await refused(home, () => c.threadResume({ threadId: id }), 'WS002');
    });

    test('thread/list: the index, newest first, a keyset cursor that neither repeats nor skips while the CLI appends', async () => {
      const lw = tmpDir('baton-list-');
      try {
        for (let i = 0; i < 7; i++) assert.equal(baton(['session', 'new', `List ${i}`, '--id', `list-${kind}-${i}`, '--cwd', lw], { home, env: CLI }).code, 0);
        const first = await call(c, 'thread/list', { cwd: lw, limit: 3 });
        assert.equal(first.data.length, 3);
        assert.ok(first.nextCursor);
        const cliList = baton(['session', 'list', '--cwd', lw, '--json'], { home, env: CLI });
        assert.deepEqual(
          first.data.map((s: any) => s.id),
          cliList.json.sessions.slice(0, 3).map((s: any) => s.id),
          'the same order as the CLI',
        );
        // Another process touches a session already listed and one not yet listed.
        assert.equal(baton(['session', 'append', first.data[0].id, '--text', 'moved up'], { home, env: CLI }).code, 0);
        const rest: string[] = [];
        let cursor = first.nextCursor;
        while (cursor) {
          const page = await call(c, 'thread/list', { cwd: lw, limit: 3, cursor });
          rest.push(...page.data.map((s: any) => s.id));
          cursor = page.nextCursor;
        }
        const seen = [...first.data.map((s: any) => s.id), ...rest];
        assert.equal(new Set(seen).size, seen.length, 'no session twice');
        assert.deepEqual(new Set(seen), new Set(Array.from({ length: 7 }, (_, i) => `list-${kind}-${i}`)), 'every session once');
        const searched = await call(c, 'thread/list', { search: 'moved', all: false });
        assert.deepEqual(
          searched.data.map((s: any) => s.id),
          [first.data[0].id],
        );
        const bad = await c.threadList({ cursor: 'not-a-cursor' }).catch((e) => e);
        assert.equal(bad.code, -32602);
        const tooMany = await c.threadList({ limit: 501 }).catch((e) => e);
        assert.equal(tooMany.code, -32602);
        await refused(home, () => c.threadList({ all: true, cwd: lw }), 'USAGE');
      } finally {
        fs.rmSync(lw, { recursive: true, force: true });
      }
    });

    test('event/replay: pages by encoded bytes, never over maxBytes, a larger event alone with oversize', async () => {
      const id = `replay-${kind}`;
      assert.equal(baton(['session', 'new', 'Replay', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
      for (let i = 0; i < 20; i++) assert.equal(baton(['session', 'append', id, '--text', `entry ${i} ${'x'.repeat(i * 20)}`], { home, env: CLI }).code, 0);
      assert.equal(baton(['session', 'append', id, '--text', 'y'.repeat(5000)], { home, env: CLI }).code, 0);
      const lines = fs.readFileSync(join(home, 'sessions', id, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
      const got: any[] = [];
      let afterSeq = 0;
      let oversize = 0;
      for (;;) {
        const page = await call(c, 'event/replay', { threadId: id, after: afterSeq, maxBytes: 1200 });
        const bytes = page.events.reduce((n: number, e: any) => n + Buffer.byteLength(JSON.stringify(e)), 0);
        if (page.oversize) {
          oversize++;
          assert.equal(page.events.length, 1, 'an oversize event comes alone');
        } else assert.ok(bytes <= 1200, `page of ${bytes} bytes`);
        got.push(...page.events);
        afterSeq = page.nextAfter;
        if (!page.hasMore) break;
      }
      assert.equal(oversize, 1);
      assert.deepEqual(
        got.map((e) => JSON.stringify(e)),
        lines,
        'the pages are the log, in order, each event once',
      );
      const empty = await call(c, 'event/replay', { threadId: id, after: 10_000 });
      assert.deepEqual(empty, { events: [], nextAfter: 10_000, hasMore: false });
      const big = await c.eventReplay({ threadId: id, after: 0, maxBytes: 2 * 1024 * 1024 }).catch((e) => e);
      assert.equal(big.code, -32602, 'maxBytes is at most 1 MiB');
    });

    test('event/subscribe: the gap after `after` first, then live events from other processes; unsubscribe', async () => {
      const id = `sub-${kind}`;
      assert.equal(baton(['session', 'new', 'Sub', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
      const seen: any[] = [];
      const stop = c.onEvent((n) => {
        if (n.threadId === id) seen.push(n);
      });
      const sub = await call(c, 'event/subscribe', { threadId: id, after: 1 });
      assert.equal(sub.after, 1);
      for (let i = 0; i < 5; i++) assert.equal(baton(['session', 'append', id, '--text', `live ${i}`], { home, env: CLI }).code, 0);
      await until(() => seen.length >= 6, 'the events after seq 1');
      assert.deepEqual(
        seen.map((n) => n.event.seq),
        [2, 3, 4, 5, 6, 7],
      );
      assert.ok(seen.every((n) => n.subscriptionId === sub.subscriptionId));
      assert.deepEqual(await call(c, 'event/unsubscribe', { subscriptionId: sub.subscriptionId }), {});
      await refused(home, () => c.eventUnsubscribe({ subscriptionId: sub.subscriptionId }), 'UNKNOWN_SUBSCRIPTION');
      stop();
    });

    test('pointer/publish and pointer/get answer what the CLI answers; a stale publish is refused with the receipt', async () => {
      const id = `ptr-${kind}`;
      assert.equal(baton(['session', 'new', 'Ptr', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
      const req = { schema_version: 3, session_id: id, expected_generation: 'ABSENT', expected_revision: 0, task_id: '0b7e4a52-4c3e-4d2a-9f1e-2a3b4c5d6e7f', target_status: 'CLEAN', pointer_text: 'next: ship it' };
      const cliFirst = baton(['pointer', 'publish'], { home, env: CLI, input: JSON.stringify(req) });
      assert.equal(cliFirst.code, 0, cliFirst.stderr);
      const shown = baton(['pointer', 'show', id, '--json'], { home, env: CLI }).json;
      const got = await call(c, 'pointer/get', { threadId: id });
      assert.deepEqual(got, shown);
      const next = { ...req, expected_generation: got.generation, expected_revision: got.revision, task_id: got.task_id, pointer_text: 'next: review' };
      const receipt = await call(c, 'pointer/publish', next);
      assert.deepEqual(Object.keys(receipt), Object.keys(cliFirst.json), 'the CLI receipt fields');
      assert.equal(receipt.revision, got.revision + 1);
      const stale = await refused(home, () => c.pointerPublish(next as never), 'STALE_REVISION');
      assert.deepEqual(stale.data.details.receipt, { ok: false, error: 'STALE_REVISION', current_generation: receipt.generation, current_revision: receipt.revision });
      const cliStale = baton(['pointer', 'publish'], { home, env: CLI, input: JSON.stringify(next) });
      assert.deepEqual(stale.data.details.receipt, cliStale.json, 'the same receipt as the CLI');
      const invalid = await refused(home, () => c.pointerPublish({ ...next, extra: 1 } as never), 'INVALID_REQUEST');
      assert.equal(invalid.data.details.receipt.detail, 'UNKNOWN_FIELD');
    });

    test('ref/capture, ref/list, ref/render answer the CLI --json', async () => {
      const into = `rpc-${kind}`;
      const cap = await call(c, 'ref/capture', { from: 'cli-1', into, ttl: '1h', maxLines: 5 });
      assert.equal(cap.ref.source, 'cli-1');
      assert.equal(cap.ref.state, 'fresh');
      const list = await call(c, 'ref/list', { threadId: into });
      assert.deepEqual(list, baton(['ref', 'list', into, '--json'], { home, env: CLI }).json);
      const rendered = await call(c, 'ref/render', { threadId: into });
      assert.deepEqual(rendered, baton(['ref', 'render', into, '--json'], { home, env: CLI }).json);
      await refused(home, () => c.refRender({ threadId: into, digest: 'ffffffffffff' }), 'REF_NOT_FOUND');
      await refused(home, () => c.refCapture({ from: into, into }), 'REF_SELF');
      const read = await call(c, 'thread/read', { threadId: into });
      assert.equal(read.thread.refs.length, 1);
      assert.equal(read.thread.refs[0].digest, cap.ref.digest);
    });

    test('episode/list: outcome and the digest of the frozen start context', async () => {
      const id = `ep-${kind}`;
      assert.equal(baton(['session', 'new', 'Episodes', '--id', id, '--cwd', ws], { home, env: CLI }).code, 0);
      assert.equal(baton(['episode', 'open', id], { home, env: CLI }).code, 0);
      let eps = await call(c, 'episode/list', { threadId: id });
      assert.equal(eps.data.length, 1);
      assert.equal(eps.data[0].outcome, null);
      const digest = eps.data[0].context_digest;
      assert.equal(baton(['episode', 'close', id, '--reason', 'done'], { home, env: CLI }).code, 0);
      eps = await call(c, 'episode/list', { threadId: id });
      const closed = readJsonl(join(home, 'sessions', id, 'events.jsonl')).find((e) => e.type === 'episode.closed');
      assert.equal(eps.data[0].outcome, closed.payload.outcome);
      assert.equal(eps.data[0].reason, 'done');
      assert.equal(eps.data[0].closed_seq, closed.seq);
      assert.equal(eps.data[0].context_digest, digest, 'the start context digest does not change at close');
    });

    test('search and project/list answer from the index', async () => {
      const s = await call(c, 'search', { query: 'decision' });
      assert.ok(s.data.some((h: any) => h.session === `rpc-${kind}`));
      await refused(home, () => c.search({ query: '!!!' }), 'USAGE');
      const p = await call(c, 'project/list', {});
      assert.ok(p.data.some((x: any) => x.path === ws && x.sessions >= 1));
    });

    test('protocol errors: -32700, -32600, -32601, -32602; the connection stays usable', async () => {
      const raw = rawOver(c);
      raw.send('{not json');
      assert.equal((await raw.next()).error.code, -32700);
      raw.send('[]');
      assert.equal((await raw.next()).error.code, -32600);
      raw.send(JSON.stringify({ jsonrpc: '1.0', id: 100001, method: 'thread/list' }));
      assert.equal((await raw.next()).error.code, -32600);
      raw.send(JSON.stringify({ jsonrpc: '2.0', id: 100002, method: 'thread/nope' }));
      assert.equal((await raw.next()).error.code, -32601);
      raw.send(JSON.stringify({ jsonrpc: '2.0', id: 100003, method: 'thread/read', params: { threadId: 5 } }));
      const bad = await raw.next();
      assert.equal(bad.error.code, -32602);
      assert.equal(bad.error.data.issues[0].path, 'threadId');
      raw.send(JSON.stringify({ jsonrpc: '2.0', id: 100004, method: 'thread/read', params: { threadId: 'cli-1', surprise: true } }));
      assert.equal((await raw.next()).error.code, -32602, 'unknown params are refused');
      raw.send(JSON.stringify([{ jsonrpc: '2.0', id: 'b1', method: 'pointer/get', params: { threadId: 'cli-1' } }, { jsonrpc: '2.0', id: 'b2', method: 'nope' }]));
      const batch = await raw.next();
      assert.deepEqual(
        batch.map((r: any) => [r.id, r.error?.code ?? 'ok']),
        [
          ['b1', 'ok'],
          ['b2', -32601],
        ],
      );
      // Still usable, and no stack unless BATON_DEBUG=1.
      const r = await c.request('thread/read', { threadId: 'cli-1' });
      assert.equal((r as any).thread.id, 'cli-1');
    });
  });
}
