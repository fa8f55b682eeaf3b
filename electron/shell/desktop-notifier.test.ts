import type { NotificationConstructorOptions } from 'electron';
import { afterEach, describe, expect, it } from 'vitest';
import type { DesktopNotification } from '../../shared/attention';
import { EventHub } from '../events/event-hub';
import { createMemoryLogger } from '../platform/log';
import { bindDesktopNotifications, type NotifierWindow } from './desktop-notifier';

/**
 * The desktop app's notifications against stand-ins for Electron's Notification and windows (the
 * Electron binary is not available everywhere the tests run): what the shell shows, when it keeps
 * quiet, and where a click takes the operator.
 */

const payload: DesktopNotification = {
  id: 'ntf_1',
  event: 'run_refused',
  title: 'AI connection required: Refactor the parser',
  body: 'Sandboxed fixture was not started on “Refactor the parser”. Choose an AI connection for it.',
  route: '#/agents/agt_1/ai-connection',
  runId: 'run_1',
  noticeId: 'ntc_1',
  count: 1,
  silent: true,
  quietWhenFocused: true,
  at: new Date().toISOString(),
};

class StandInNotification {
  static supported = true;
  static made: StandInNotification[] = [];
  static isSupported() {
    return StandInNotification.supported;
  }
  readonly listeners = new Map<string, () => void>();
  shown = false;
  closed = false;
  constructor(readonly options: NotificationConstructorOptions) {
    StandInNotification.made.push(this);
  }
  on(event: string, listener: () => void) {
    this.listeners.set(event, listener);
    return this;
  }
  show() {
    this.shown = true;
  }
  close() {
    this.closed = true;
  }
}

function standInWindow(focused = false) {
  const did: string[] = [];
  const sent: unknown[][] = [];
  const window: NotifierWindow & { focused: boolean; minimized: boolean } = {
    focused,
    minimized: false,
    isFocused: () => window.focused,
    isMinimized: () => window.minimized,
    isDestroyed: () => false,
    restore: () => void did.push('restore'),
    show: () => void did.push('show'),
    focus: () => void did.push('focus'),
    webContents: { send: (...args: unknown[]) => void sent.push(args), isDestroyed: () => false },
  };
  return { window, did, sent };
}

let unbind: () => void = () => {};
afterEach(() => {
  unbind();
  StandInNotification.made = [];
  StandInNotification.supported = true;
});

function bind(windows: NotifierWindow[], openNotices: number | Promise<number> = 0) {
  const events = new EventHub();
  const badges: number[] = [];
  const opened: string[] = [];
  unbind = bindDesktopNotifications({
    events,
    log: createMemoryLogger(),
    Notification: StandInNotification,
    windows: () => windows,
    openWindow: (route) => opened.push(route),
    setBadgeCount: (count) => badges.push(count),
    openNotices: () => openNotices,
  });
  return { events, badges, opened };
}

describe('desktop notifications in the desktop app', () => {
  it('shows each with Electron’s Notification, silent as the operator chose; a click brings the console forward at the route', () => {
    const { window, did, sent } = standInWindow();
    window.minimized = true;
    const { events } = bind([window]);
    events.emit('desktopNotification', payload);
    const [shown, ...more] = StandInNotification.made;
    expect(more).toEqual([]);
    expect(shown).toMatchObject({ shown: true, options: { title: payload.title, body: payload.body, silent: true } });

    shown!.listeners.get('click')!();
    expect(did).toEqual(['restore', 'show', 'focus']);
    expect(sent).toEqual([['operator:event', 'openRoute', { route: payload.route }]]);
  });

  it('keeps quiet while a console window has focus, if the operator asked for that', () => {
    const { window } = standInWindow(true);
    const { events } = bind([window]);
    events.emit('desktopNotification', payload);
    expect(StandInNotification.made).toEqual([]);
    events.emit('desktopNotification', { ...payload, id: 'ntf_2', quietWhenFocused: false });
    expect(StandInNotification.made).toHaveLength(1);
  });

  it('opens a window at the route when none is open, and never opens anything but an in-app route', () => {
    const { events, opened } = bind([]);
    events.emit('desktopNotification', payload);
    events.emit('desktopNotification', { ...payload, id: 'ntf_3', route: 'https://attacker.example/' });
    for (const notification of StandInNotification.made) notification.listeners.get('click')!();
    expect(opened).toEqual([payload.route]);
  });

  it('shows nothing where the system has no notifications', () => {
    StandInNotification.supported = false;
    const { events } = bind([standInWindow().window]);
    events.emit('desktopNotification', payload);
    expect(StandInNotification.made).toEqual([]);
  });

  it('puts the open-notice count on the badge at start and whenever notices change', () => {
    const { events, badges } = bind([standInWindow().window], 2);
    events.emit('noticesChanged', { open: 3 });
    events.emit('noticesChanged', { open: 0 });
    expect(badges).toEqual([2, 3, 0]);
  });

  it('puts the count the service answers later on the badge, unless a change came first', async () => {
    let answer!: (count: number) => void;
    const { events, badges } = bind([standInWindow().window], new Promise<number>((resolve) => (answer = resolve)));
    events.emit('noticesChanged', { open: 3 });
    answer(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(badges).toEqual([3]);

    const later = bind([standInWindow().window], Promise.resolve(4));
    await new Promise((resolve) => setImmediate(resolve));
    expect(later.badges).toEqual([4]);
  });
});
