import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeOperatorClient } from '../testing/fake-operator-client';
import { renderInConsole } from '../testing/render-in-console';
import { ConsoleRestartedGate } from './console-restarted';

describe('the page once the console no longer accepts its token', () => {
  it('shows the console while the connection is up or coming back, and says it was restarted once refused', () => {
    const client = fakeOperatorClient();
    renderInConsole(
      <ConsoleRestartedGate>
        <h1>Runs</h1>
      </ConsoleRestartedGate>,
      { client },
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Runs' })).toBeTruthy();
    act(() => client.setTransportState('reconnecting'));
    expect(screen.getByRole('heading', { level: 1, name: 'Runs' })).toBeTruthy();

    act(() => client.setTransportState('refused'));
    expect(screen.queryByRole('heading', { name: 'Runs' })).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'The console was restarted' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toMatch(/Open the new address the console printed when it started/);
  });
});
