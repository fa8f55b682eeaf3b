import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OperatorError } from '../../../shared/errors';
import { deferred, fakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { LogFolder } from './log-folder';

const logDir = '/home/operator/.local/share/operator-console/logs';
const logFile = `${logDir}/console.log`;

function logClient(opened: boolean) {
  return fakeOperatorClient({
    getLogInfo: () => ({ logDir, logFile }),
    openLogFolder: () => ({ path: logDir, opened }),
  });
}

/** The Log group once it knows where the log is. */
async function loadedLog() {
  await screen.findByRole('button', { name: 'Open log folder' });
  return screen.getByRole('group', { name: 'Log' });
}

describe('Settings → About: the log folder', () => {
  it('names the log file and its folder, and says the file manager was asked to open it', async () => {
    const client = logClient(true);
    const { user } = renderInConsole(<LogFolder />, { client });
    const log = await loadedLog();
    expect(within(log).getByText(logFile)).toBeTruthy();
    expect(within(log).getByText(logDir)).toBeTruthy();
    expect(within(log).getByRole('status').textContent).toBe('');

    await user.click(within(log).getByRole('button', { name: 'Open log folder' }));
    expect(await within(log).findByText('Asked this machine’s file manager to open the log folder. If nothing opened, copy the path.')).toBeTruthy();
    expect(client.inputsOf('openLogFolder')).toHaveLength(1);
  });

  it('says when no file manager could be opened, and Copy path puts the folder on the clipboard', async () => {
    const { user } = renderInConsole(<LogFolder />, { client: logClient(false) });
    const log = await loadedLog();
    await user.click(within(log).getByRole('button', { name: 'Open log folder' }));
    const status = within(log).getByRole('status');
    await within(log).findByText(/could not open a file manager/);

    await user.click(within(log).getByRole('button', { name: 'Copy path' }));
    expect(await navigator.clipboard.readText()).toBe(logDir);
    expect(status.textContent).toBe(
      'The console could not open a file manager on this machine. Copy the path and open it yourself. Copied.',
    );
  });

  it('forgets an earlier Copied. once Open log folder is asked again, and keeps a second click from sending twice', async () => {
    const client = logClient(true);
    const { user } = renderInConsole(<LogFolder />, { client });
    const log = await loadedLog();
    await user.click(within(log).getByRole('button', { name: 'Copy path' }));
    expect(within(log).getByRole('status').textContent).toBe(' Copied.');

    const answer = deferred<{ path: string; opened: boolean }>();
    client.answer({ openLogFolder: () => answer.promise });
    const open = within(log).getByRole('button', { name: 'Open log folder' });
    await user.click(open);
    expect(within(log).getByRole('status').textContent).toBe('');
    expect(open.getAttribute('aria-disabled')).toBe('true');
    await user.click(open);
    answer.resolve({ path: logDir, opened: true });
    await within(log).findByText(/Asked this machine’s file manager/);
    expect(client.inputsOf('openLogFolder')).toHaveLength(1);
  });

  it('shows the core’s error when the folder could not be opened', async () => {
    const client = fakeOperatorClient({
      getLogInfo: () => ({ logDir, logFile }),
      openLogFolder: () => {
        throw new OperatorError({ code: 'path_not_found', message: 'The log folder is gone: restart the console to make it again.' });
      },
    });
    const { user } = renderInConsole(<LogFolder />, { client });
    await user.click(await screen.findByRole('button', { name: 'Open log folder' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Could not open the log folder. The log folder is gone: restart the console to make it again.',
    );
  });

  it('says where the log goes when the console writes no file', async () => {
    renderInConsole(<LogFolder />, { client: fakeOperatorClient({ getLogInfo: () => ({ logDir: null, logFile: null }) }) });
    expect(await screen.findByText(/keeps no log file this time: it could not be made/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Open log folder' })).toBeNull();
  });
});
