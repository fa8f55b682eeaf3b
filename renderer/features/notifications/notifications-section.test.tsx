import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultNotificationSettings, type NotificationSettings } from '../../../shared/attention';
import { fakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { NotificationsSection } from './notifications-section';

/** Settings → Notifications, with a stand-in for the browser's Notification API where the browser host needs one. */

const systemInfo = (transport: 'browser' | 'electron') => ({
  appVersion: 'test',
  transport,
  dataDir: '/data',
  ledgerPath: '/data/ledger.sqlite',
  platform: 'linux',
  homeDir: '/home/operator',
});

function clientFor(transport: 'browser' | 'electron', settings: NotificationSettings = defaultNotificationSettings) {
  return fakeOperatorClient({
    getSystemInfo: () => systemInfo(transport),
    getNotificationSettings: () => settings,
    setNotificationSettings: (input) => input,
  });
}

/** The browser's Notification API with this permission; requestPermission answers `answer`. */
function browserPermission(permission: NotificationPermission, answer: NotificationPermission = permission) {
  const api = {
    permission,
    requestPermission: vi.fn(() => {
      api.permission = answer;
      return Promise.resolve(answer);
    }),
  };
  vi.stubGlobal('Notification', api);
  return api;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Settings → Notifications', () => {
  it('shows which events notify, quiet while focused and sound, and saves what the operator changes', async () => {
    browserPermission('granted');
    const client = clientFor('browser');
    const { user } = renderInConsole(<NotificationsSection />, { client });
    const succeeds = await screen.findByRole('checkbox', { name: 'A run succeeds' });
    for (const name of ['A run succeeds', 'A run fails', 'A run is refused before it starts', 'A run waits for a quota reset', 'A notice is raised']) {
      expect(screen.getByRole<HTMLInputElement>('checkbox', { name }).checked, name).toBe(true);
    }
    expect(screen.getByRole('group', { name: 'Notify me when' })).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Quiet while the console window has focus' }).checked).toBe(true);

    await user.click(succeeds);
    await user.click(screen.getByRole('checkbox', { name: 'Play a sound' }));
    await user.click(screen.getByRole('button', { name: 'Save notification settings' }));
    expect(await screen.findByText('Saved.')).toBeTruthy();
    expect(client.inputsOf('setNotificationSettings')).toEqual([
      { ...defaultNotificationSettings, events: { ...defaultNotificationSettings.events, run_succeeded: false }, sound: false },
    ]);
  });

  it('in the browser host, asks the browser for permission with Allow notifications', async () => {
    const api = browserPermission('default', 'granted');
    const { user } = renderInConsole(<NotificationsSection />, { client: clientFor('browser') });
    expect(await screen.findByText('Not allowed yet')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Allow notifications' }));
    expect(api.requestPermission).toHaveBeenCalledTimes(1);
    expect(await screen.findByText('Allowed')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Allow notifications' })).toBeNull();
  });

  it('says a blocked permission is changed in the browser’s site settings', async () => {
    const api = browserPermission('denied');
    const { user } = renderInConsole(<NotificationsSection />, { client: clientFor('browser') });
    expect(await screen.findByText('Blocked')).toBeTruthy();
    expect(screen.getByText(/Allow them in the browser’s site settings/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Allow notifications' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/^The browser answered that notifications stay blocked\./));
    expect(api.permission).toBe('denied');
  });

  it('in the desktop app, leaves the showing to the app: no browser permission to ask for', async () => {
    browserPermission('default');
    renderInConsole(<NotificationsSection />, { client: clientFor('electron') });
    expect(await screen.findByText('The desktop app shows them in your system’s notification area.')).toBeTruthy();
    await screen.findByRole('checkbox', { name: 'A run succeeds' });
    expect(screen.queryByRole('button', { name: 'Allow notifications' })).toBeNull();
  });
});
