import { act, screen, waitFor } from '@testing-library/react';
import { expect, it } from 'vitest';
import { fakeOperatorClient } from '../testing/fake-operator-client';
import { renderInConsole } from '../testing/render-in-console';
import { StatusBar } from './status-bar';
import { useCoreSync } from './use-core-sync';

/** The app's subscription to the core's events, as App mounts it. */
function CoreSync() {
  useCoreSync();
  return null;
}

it('says when the console service hands over to a newer version once its runs end, and how to switch now instead', async () => {
  let handingOverTo: string | null = null;
  const client = fakeOperatorClient({ getServiceState: () => ({ consoleVersion: '0.0.9', handingOverTo }) });
  renderInConsole(
    <>
      <CoreSync />
      <StatusBar />
    </>,
    { client },
  );
  await waitFor(() => expect(client.inputsOf('getServiceState')).toHaveLength(1));
  expect(screen.getByRole('status').textContent).not.toContain('finishing');

  // Another version's launcher asked it to let its runs finish and switch afterwards.
  handingOverTo = '0.1.0';
  act(() => client.emit('serviceStateChanged', {}));
  await waitFor(() =>
    expect(screen.getByRole('status').textContent).toContain(
      'Version 0.0.9 is finishing its runs and starts no new one; version 0.1.0 takes over by itself when they end. To switch now instead, run npm run serve -- --restart-now',
    ),
  );
});
