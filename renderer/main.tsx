import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getOperatorClient } from './api/operator-client';
import { App } from './app/App';
import { operatorMessage } from './ui/error-message';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = createRoot(container);

// Whether the transport hands its client over at once or after a handshake, the app starts the same way.
Promise.resolve()
  .then(() => getOperatorClient())
  .then(
    (client) => {
      root.render(
        <StrictMode>
          <App client={client} />
        </StrictMode>,
      );
    },
    (error: unknown) => {
      root.render(
        <main className="startup-failure">
          <h1>The console could not start</h1>
          <p role="alert">{operatorMessage(error)}</p>
          <p>Reopen the console from its launcher; in a browser, use the address it printed, including its token.</p>
        </main>,
      );
    },
  );
