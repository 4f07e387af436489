// The page's address: everything lives in the query string of `/` (the server serves one
// page), so a filter or a session is a link, and the back button walks the history.
//   /?state=active&project=<id>&ws=<path>&q=<search>   the list
//   /?sid=<id part>&agent=<agent>                      the list, filtered in the page
//   /?s=<session id>&at=<seq>                          a session (at: a transcript item to open at)
import { useEffect, useState } from 'react';

export type Route = { kind: 'list'; state: string; project: string; ws: string; q: string; sid?: string; agent?: string } | { kind: 'session'; id: string; at?: number };

export function parseRoute(search: string): Route {
  const p = new URLSearchParams(search);
  const s = p.get('s');
  if (s) {
    const at = Number(p.get('at'));
    return Number.isSafeInteger(at) && at > 0 ? { kind: 'session', id: s, at } : { kind: 'session', id: s };
  }
  return { kind: 'list', state: p.get('state') ?? '', project: p.get('project') ?? '', ws: p.get('ws') ?? '', q: p.get('q') ?? '', sid: p.get('sid') ?? '', agent: p.get('agent') ?? '' };
}

export function hrefOf(r: Route): string {
  const p = new URLSearchParams();
  if (r.kind === 'session') {
    p.set('s', r.id);
    if (r.at) p.set('at', String(r.at));
  } else for (const k of ['state', 'project', 'ws', 'q', 'sid', 'agent'] as const) if (r[k]) p.set(k, r[k] as string);
  const q = p.toString();
  return q ? `?${q}` : window.location.pathname;
}

const subscribers = new Set<() => void>();

export function navigate(r: Route, replace = false): void {
  const href = hrefOf(r);
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  for (const s of subscribers) s();
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.search));
    subscribers.add(update);
    window.addEventListener('popstate', update);
    return () => {
      subscribers.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}
