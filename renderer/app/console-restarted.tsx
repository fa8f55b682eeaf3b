import type { ReactNode } from 'react';
import { useTransportState } from './use-core-sync';

/**
 * What the page shows once the browser host no longer accepts its token: the console was restarted,
 * with a new token, and nothing on this page can get back in. The whole page says so, because every
 * part of it would fail the same way; only the new address helps.
 */
export function ConsoleRestartedGate({ children }: { children: ReactNode }) {
  const state = useTransportState();
  if (state !== 'refused') return children;
  return (
    <main className="startup-failure" data-transport-state={state}>
      <h1>The console was restarted</h1>
      <p role="alert">
        This page was opened with the console’s previous access token, which it no longer accepts. Open the new address the
        console printed when it started (the one ending in <code>/?token=…</code>).
      </p>
      <p>If you have already opened that address in another tab, reload this one.</p>
    </main>
  );
}
