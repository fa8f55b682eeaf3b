import { describe, expect, it } from 'vitest';
import type { DesktopNotification } from '../../../shared/attention';
import { showDesktopNotification, type NotificationSurface } from './show-notification';

/**
 * The browser host's decision to show a notification, against a stand-in for the browser's
 * Notification API (the real one is exercised in e2e/specs/notifications.spec.ts).
 */

const payload: DesktopNotification = {
  id: 'ntf_1',
  event: 'run_succeeded',
  title: 'Run succeeded: Write the plan',
  body: 'Codex finished “Write the plan”. Open the run to review its changes.',
  route: '#/runs/run_1',
  runId: 'run_1',
  noticeId: null,
  count: 1,
  silent: false,
  quietWhenFocused: true,
  at: '2026-03-02T09:00:00.000Z',
};

function browser(permission: NotificationPermission, focused: boolean) {
  const shown: StandIn[] = [];
  const done: string[] = [];
  class StandIn {
    static permission = permission;
    onclick: ((event: Event) => void) | null = null;
    closed = false;
    constructor(
      readonly title: string,
      readonly options?: NotificationOptions,
    ) {
      shown.push(this);
    }
    close() {
      this.closed = true;
    }
  }
  const surface: NotificationSurface = {
    Notification: StandIn as unknown as typeof Notification,
    hasFocus: () => focused,
    focusWindow: () => done.push('focus'),
    navigate: (route) => done.push(`navigate ${route}`),
  };
  return { surface, shown, done };
}

describe('a desktop notification in the browser', () => {
  it('is shown with its id as the tag and the operator’s sound setting; a click focuses the console and opens its route', () => {
    const { surface, shown, done } = browser('granted', false);
    expect(showDesktopNotification({ ...payload, silent: true }, surface)).toMatchObject({ shown: true });
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ title: payload.title, options: { body: payload.body, tag: 'ntf_1', silent: true } });
    const click = new Event('click', { cancelable: true });
    shown[0]!.onclick!(click);
    expect(click.defaultPrevented).toBe(true);
    expect(done).toEqual(['focus', 'navigate #/runs/run_1']);
    expect(shown[0]!.closed).toBe(true);
  });

  it('is not shown until the operator allows notifications, nor where there is no API', () => {
    for (const permission of ['default', 'denied'] as const) {
      const { surface, shown } = browser(permission, false);
      expect(showDesktopNotification(payload, surface)).toEqual({ shown: false, why: 'not-allowed' });
      expect(shown).toEqual([]);
    }
    expect(showDesktopNotification(payload, { ...browser('granted', false).surface, Notification: undefined })).toEqual({ shown: false, why: 'unsupported' });
  });

  it('keeps quiet while the console has focus if the operator asked for that, and not otherwise', () => {
    const focused = browser('granted', true);
    expect(showDesktopNotification(payload, focused.surface)).toEqual({ shown: false, why: 'focused' });
    expect(showDesktopNotification({ ...payload, quietWhenFocused: false }, focused.surface)).toMatchObject({ shown: true });
    expect(focused.shown).toHaveLength(1);
  });

  it('opens only an in-app route', () => {
    const { surface, shown, done } = browser('granted', false);
    showDesktopNotification({ ...payload, route: 'https://attacker.example/' }, surface);
    shown[0]!.onclick!(new Event('click'));
    expect(done).toEqual(['focus']);
  });
});
