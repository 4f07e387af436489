// The page's address: everything lives in the query string of `/` (the server serves one
// page), so a filter or a session is a link, and the back button walks the history.
//   /?state=active&project=<id>&ws=<path>&q=<search>   the list
//   /?s=<session id>                                   a session
import { useEffect, useState } from 'react';

export type Route = { kind: 'list'; state: string; project: string; ws: string; q: string } | { kind: 'session'; id: string };

export function parseRoute(search: string): Route {
  const p = new URLSearchParams(search);
  const s = p.get('s');
  if (s) return { kind: 'session', id: s };
  return { kind: 'list', state: p.get('state') ?? '', project: p.get('project') ?? '', ws: p.get('ws') ?? '', q: p.get('q') ?? '' };
}

export function hrefOf(r: Route): string {
  const p = new URLSearchParams();
  if (r.kind === 'session') p.set('s', r.id);
  else for (const k of ['state', 'project', 'ws', 'q'] as const) if (r[k]) p.set(k, r[k]);
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
