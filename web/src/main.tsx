// The web page's entry (docs/web.md): one connection, two views chosen by the URL.
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { type ConnState, connState, hasToken, onConn, start, takeToken } from './api.ts';
import { List } from './List.tsx';
import { useRoute } from './route.ts';
import { Session } from './Session.tsx';
import './styles.css';

function App() {
  const route = useRoute();
  const [conn, setConn] = useState<ConnState>(connState());
  useEffect(() => onConn(setConn), []);
  useEffect(() => {
    document.title = route.kind === 'session' ? `baton · ${route.id.slice(0, 8)}` : 'baton · sessions';
  }, [route]);
  return (
    <>
      <header className="top">
        <a className="brand" href="./">
          baton
        </a>
        <span className={`conn conn-${conn}`}>{conn === 'up' ? 'live' : conn}</span>
      </header>
      {!hasToken() && (
        <p className="banner error" role="alert" data-testid="no-token">
          <strong>No token</strong> Open the address <code>baton serve --open</code> prints (it ends in <code>?token=…</code>); this tab keeps the token, no cookie does.
        </p>
      )}
      {conn === 'down' && hasToken() && (
        <p className="banner warn" role="alert" data-testid="conn-lost">
          Connection to baton serve lost — reconnecting; live events resume from the last one seen.
        </p>
      )}
      {route.kind === 'session' ? <Session key={route.id} id={route.id} at={route.at} /> : <List route={route} />}
    </>
  );
}

// The token leaves the address bar before the router reads the URL.
takeToken();
start();
const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
