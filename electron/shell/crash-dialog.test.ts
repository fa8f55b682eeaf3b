import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Crash } from '../platform/crash-handlers';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

const { offerRelaunch, crashQuitTimeoutMs } = await import('./crash-dialog');

const crash: Crash = { kind: 'uncaught_exception', message: 'the ledger went away', logFile: '/data/logs/console.log' };

/** The app and dialog as the crash dialog sees them, recording what it did. */
function shellStandIn(options: { ready: boolean; response?: number }) {
  const calls: string[] = [];
  const boxes: Array<Record<string, unknown>> = [];
  const shell = {
    app: {
      isReady: () => options.ready,
      relaunch: () => void calls.push('relaunch'),
      quit: () => void calls.push('quit'),
      exit: (code?: number) => void calls.push(`exit ${code}`),
    },
    dialog: {
      showMessageBox: (box: Record<string, unknown>) => {
        boxes.push(box);
        return Promise.resolve({ response: options.response ?? 0, checkboxChecked: false });
      },
      showErrorBox: (title: string, content: string) => void boxes.push({ title, content }),
    },
  };
  return { shell: shell as unknown as Parameters<typeof offerRelaunch>[1], calls, boxes };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the crash dialog (desktop app)', () => {
  it('says what happened and where the log is, and Relaunch relaunches through a clean quit', async () => {
    vi.useFakeTimers();
    const { shell, calls, boxes } = shellStandIn({ ready: true, response: 0 });
    await expect(offerRelaunch(crash, shell)).resolves.toBe('relaunch');
    expect(boxes[0]).toMatchObject({ type: 'error', message: 'Operator Console hit an unexpected error', buttons: ['Relaunch', 'Quit'], defaultId: 0, cancelId: 1 });
    expect(boxes[0]!.detail).toContain('the ledger went away');
    expect(boxes[0]!.detail).toContain('The details are in the console’s log, /data/logs/console.log.');
    expect(calls).toEqual(['relaunch', 'quit']);
    // A quit that wedges (the core may be what broke) still ends the app.
    vi.advanceTimersByTime(crashQuitTimeoutMs);
    expect(calls).toEqual(['relaunch', 'quit', 'exit 1']);
  });

  it('quits without relaunching when the operator chooses Quit', async () => {
    const { shell, calls } = shellStandIn({ ready: true, response: 1 });
    await expect(offerRelaunch(crash, shell)).resolves.toBe('quit');
    expect(calls).toEqual(['quit']);
  });

  it('shows an error box and exits when the app is not ready for a window yet', async () => {
    const { shell, calls, boxes } = shellStandIn({ ready: false });
    await expect(offerRelaunch(crash, shell)).resolves.toBe('quit');
    expect(boxes[0]).toMatchObject({ title: 'Operator Console hit an unexpected error' });
    expect(boxes[0]!.content).toContain('/data/logs/console.log');
    expect(calls).toEqual(['exit 1']);
  });
});
