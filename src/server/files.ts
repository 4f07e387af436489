// The web page's narrow file routes (docs/web.md): what the JSON-RPC protocol does not carry,
// read-only, behind the same token as every route.
//   GET /artifacts/<session>/          {data: [{name, sha256, bytes}]}: the session's current artifacts
//   GET /artifacts/<session>/<name>    one artifact's bytes, as a download
//   GET /contexts/<session>/<name>     an episode's start context as frozen when it opened
// Names are plain file names (the store's artifact-name rule): no separator, no `..`; the
// session is resolved by the store (exact id or unambiguous prefix). Anything else: 404.
import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { BatonError } from '../core/errors.ts';
import { frozenContext } from '../ops/thread.ts';
import { isArtifactName } from '../store/operations.ts';
import type { FsStore } from '../store/store.ts';

const SEGMENT_RE = /^\/(artifacts|contexts)\/([^/]+)\/([^/]*)$/;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra });
  res.end(body);
}

const notFound = (res: ServerResponse, why: string): void => send(res, 404, 'application/json', JSON.stringify({ error: `not found: ${why}` }));

/** Handles GET /artifacts/... and /contexts/...; false when the path is not one of them. */
export function serveSessionFile(store: FsStore, _req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  const m = SEGMENT_RE.exec(url.pathname);
  if (!m) return false;
  let idArg: string;
  let name: string;
  try {
    idArg = decodeURIComponent(m[2]);
    name = decodeURIComponent(m[3]);
  } catch {
    notFound(res, 'bad escape');
    return true;
  }
  let id: string;
  try {
    id = store.resolve(idArg);
  } catch (e) {
    if (e instanceof BatonError) {
      notFound(res, e.code);
      return true;
    }
    throw e;
  }
  const kind = m[1];
  if (kind === 'artifacts' && name === '') {
    const { view } = store.view(id);
    const data = [...view.artifacts].map(([n, a]) => {
      let bytes = 0;
      try {
        bytes = fs.statSync(join(store.dir(id), 'artifacts', n)).size;
      } catch {}
      return { name: n, sha256: a.sha256, bytes };
    });
    send(res, 200, 'application/json', JSON.stringify({ data }));
    return true;
  }
  if (!isArtifactName(name)) {
    notFound(res, 'not a plain file name');
    return true;
  }
  let body: Buffer;
  try {
    body = fs.readFileSync(join(store.dir(id), kind, name));
  } catch {
    notFound(res, `${kind}/${name}`);
    return true;
  }
  if (kind === 'contexts') send(res, 200, 'text/plain; charset=utf-8', frozenContext(body.toString('utf8')));
  else send(res, 200, 'application/octet-stream', body, { 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}` });
  return true;
}
