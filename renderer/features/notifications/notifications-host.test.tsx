import { waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesktopNotification } from '../../../shared/attention';
import { fakeOperatorClient } from '../../testing/fake-operator-client';
import { currentRoute, renderInConsole } from '../../testing/render-in-console';
import { useCoreSync } from '../../app/use-core-sync';
import { NotificationsHost } from './notifications-host';

/** The app shell's notifications host: what the page shows when the core tells it something. */

function CoreSync() {
  useCoreSync();
  return null;
}

const payload: DesktopNotification = {
  id: 'ntf_7',
  event: 'run_failed',
  title: 'Run failed: Port the parser',
  body: 'Codex failed on “Port the parser”. The CLI exited with code 3. Open the run to see why.',
  route: '#/runs/run_7',
  runId: 'run_7',
  noticeId: null,
  count: 1,
  silent: false,
  quietWhenFocused: false,
  at: '2026-03-02T09:00:00.000Z',
};

function grantedNotifications() {
  const shown: Array<{ title: string; options?: NotificationOptions | undefined; onclick: ((event: Event) => void) | null }> = [];
  class StandIn {
    static permission: NotificationPermission = 'granted';
    onclick: ((event: Event) => void) | null = null;
    constructor(
      readonly title: string,
      readonly options?: NotificationOptions,
    ) {
      shown.push(this);
    }
    close() {}
  }
  vi.stubGlobal('Notification', StandIn);
  return shown;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the notifications host', () => {
  it('shows each pushed notification, and a click opens its route', async () => {
    const shown = grantedNotifications();
    const client = fakeOperatorClient({ countOpenNotices: () => ({ open: 0 }) });
    renderInConsole(<NotificationsHost />, { client, route: '/tasks' });
    await waitFor(() => expect(client.listeners('desktopNotification')).toBe(1));

    client.emit('desktopNotification', payload);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ title: payload.title, options: { body: payload.body, tag: 'ntf_7', silent: false } });
    shown[0]!.onclick!(new Event('click'));
    expect(currentRoute()).toBe('/runs/run_7');
  });

  it('opens the route the desktop app asks for, and only an in-app one', async () => {
    const client = fakeOperatorClient({ countOpenNotices: () => ({ open: 0 }) });
    renderInConsole(<NotificationsHost />, { client, route: '/tasks' });
    await waitFor(() => expect(client.listeners('openRoute')).toBe(1));
    client.emit('openRoute', { route: 'javascript:alert(1)' });
    expect(currentRoute()).toBe('/tasks');
    client.emit('openRoute', { route: '#/agents/agt_1/ai-connection' });
    expect(currentRoute()).toBe('/agents/agt_1/ai-connection');
  });

  it('puts the open-notice count in the window title, and keeps it current as notices change', async () => {
    const client = fakeOperatorClient({ countOpenNotices: () => ({ open: 3 }) });
    renderInConsole(
      <>
        <CoreSync />
        <NotificationsHost />
      </>,
      { client },
    );
    await waitFor(() => expect(document.title).toBe('(3) Operator Console'));
    // As the core has it: the count the event carries is the one countOpenNotices answers now.
    let open = 1;
    client.answer({ countOpenNotices: () => ({ open }) });
    client.emit('noticesChanged', { open });
    await waitFor(() => expect(document.title).toBe('(1) Operator Console'));
    open = 0;
    client.emit('noticesChanged', { open });
    await waitFor(() => expect(document.title).toBe('Operator Console'));
  });
});
