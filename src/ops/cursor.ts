// The keyset cursor of a session listing (the app server's thread/list, MCP's session_list):
// (last touched, id) of a page's last row, opaque to clients. Pure.

export interface ListKey {
  last_touched_at: string;
  id: string;
}

export function encodeListCursor(k: ListKey): string {
  return Buffer.from(JSON.stringify([k.last_touched_at, k.id])).toString('base64url');
}

/** The key a cursor carries, or null when it is not one this encoder made. */
export function decodeListCursor(c: string): ListKey | null {
  try {
    const v = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return { last_touched_at: v[0], id: v[1] };
  } catch {}
  return null;
}
