// The web page's entry (docs/web.md): one connection, two views chosen by the URL.
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { type ConnState, connState, onConn, start } from './api.ts';
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
      {conn === 'down' && (
        <p className="banner warn" role="alert" data-testid="conn-lost">
          Connection to baton serve lost — reconnecting; live events resume from the last one seen.
        </p>
      )}
      {route.kind === 'session' ? <Session key={route.id} id={route.id} /> : <List route={route} />}
    </>
  );
}

start();
const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
