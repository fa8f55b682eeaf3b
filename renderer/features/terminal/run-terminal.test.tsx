import { act, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { ChannelOutput } from '../../../shared/contract';
import type { Attempt } from '../../../shared/entities';
import { OperatorError } from '../../../shared/errors';
import { anAttempt } from '../../testing/contract-fixtures';
import { deferred, fakeOperatorClient, type ChannelAnswers, type FakeOperatorClient } from '../../testing/fake-operator-client';
import { renderInConsole } from '../../testing/render-in-console';
import { RunTerminal } from './run-terminal';

/**
 * The run's terminal with the real xterm.js, drawing with its DOM renderer (happy-dom has no canvas,
 * and xterm 6 needs none). What the operator sees is read from the rows xterm draws.
 */

type Opened = ChannelOutput<'openRunOutput'>;

function terminalClient(answers: ChannelAnswers = {}) {
  return fakeOperatorClient({
    openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 0, totalBytes: 0, untilOffset: null }),
    ackRunOutput: () => ({ ok: true }),
    closeRunOutput: () => ({ ok: true }),
    resizeRun: () => ({ accepted: true }),
    sendRunInput: () => ({ accepted: true }),
    ...answers,
  });
}

function showTerminal(client: FakeOperatorClient, { running = true, canSendInput = false } = {}) {
  const rendered = renderInConsole(<RunTerminal runId="run_1" running={running} canSendInput={canSendInput} />, { client, route: '/runs/run_1' });
  return { ...rendered, terminal: screen.getByRole('region', { name: 'Run output' }) };
}

/** The lines on the terminal's screen, as xterm draws them (trailing blank rows left out). */
function screenLines(terminal: HTMLElement): string[] {
  const rows = [...terminal.querySelectorAll('.xterm-rows > div')].map((row) => (row.textContent ?? '').trimEnd());
  while (rows.length > 0 && rows.at(-1) === '') rows.pop();
  return rows;
}

const encode = (text: string) => new TextEncoder().encode(text);

/** Once the subscription is open: the loading note is gone. */
async function opened(terminal: HTMLElement) {
  await vi.waitFor(() => expect(within(terminal).queryByText(/^Loading (the full )?output…$/)).toBeNull());
}

/** The core tells the viewer that `attempt` begins where its output starts (after `previous`), under a profile of three attempts. */
function attemptBegins(client: FakeOperatorClient, attempt: Attempt, previous: Attempt) {
  client.emit('runOutputAttempt', { subscriptionId: 'sub_1', runId: 'run_1', offset: attempt.outputOffset ?? 0, attempt, previous, maxAttempts: 3 });
}

function output(client: FakeOperatorClient, text: string, offset: number, subscriptionId = 'sub_1', runId = 'run_1') {
  client.emit('runOutput', { subscriptionId, runId, offset, bytes: encode(text) });
}

describe('a run’s terminal', () => {
  it('draws the tail, keeping output that came before the subscription was confirmed, and acknowledges what xterm parsed', async () => {
    const answer = deferred<Opened>();
    const client = terminalClient({ openRunOutput: () => answer.promise });
    const { terminal, unmount } = showTerminal(client);
    expect(within(terminal).getByText('Loading output…')).toBeTruthy();
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput')).toEqual([{ runId: 'run_1', from: 'tail' }]));

    // The core replays as soon as it opened the subscription, before its answer arrives.
    output(client, 'building refunds\r\n', 4096);
    output(client, 'not this viewer’s\r\n', 4096, 'sub_other');
    output(client, 'not this run’s\r\n', 4096, 'sub_1', 'run_2');
    answer.resolve({ subscriptionId: 'sub_1', fromOffset: 4096, totalBytes: 4114, untilOffset: null });
    output(client, 'tests pass\r\n', 4114);

    await vi.waitFor(() =>
      expect(screenLines(terminal)).toEqual(['… 4096 earlier bytes not shown (Load full output shows them) …', 'building refunds', 'tests pass']),
    );
    expect(within(terminal).getByText('Showing the end of the output; the first 4.0 KB are not loaded.')).toBeTruthy();
    expect(within(terminal).queryByText('Loading output…')).toBeNull();
    // Acknowledged once parsed: every byte of this subscription, none of the others'.
    await vi.waitFor(() => expect(client.inputsOf('ackRunOutput').reduce((sum, ack) => sum + ack.bytes, 0)).toBe(30));
    expect(new Set(client.inputsOf('ackRunOutput').map((ack) => ack.subscriptionId))).toEqual(new Set(['sub_1']));

    // Leaving the run closes its subscription and stops listening.
    unmount();
    expect(client.inputsOf('closeRunOutput')).toEqual([{ subscriptionId: 'sub_1' }]);
    expect(client.listeners('runOutput')).toBe(0);
  });

  it('draws a separator where the next attempt begins, saying how the one before ended', async () => {
    const client = terminalClient();
    const { terminal } = showTerminal(client);
    await opened(terminal);
    output(client, 'first try\r\n', 0);
    attemptBegins(
      client,
      anAttempt({ number: 2, cause: 'retry', status: 'running', startedAt: '2026-03-02T09:00:13.000Z', outputOffset: 11 }),
      anAttempt({ number: 1, status: 'failed', failureCode: 'process_exit', exitCode: 1, endedAt: '2026-03-02T09:00:10.000Z' }),
    );
    output(client, 'second try\r\n', 11);
    await vi.waitFor(() =>
      expect(screenLines(terminal)).toEqual(['first try', '', '── retry after process_exit (exit code 1) · attempt 2 of 3 · 3 s later ──', 'second try']),
    );
  });

  it('marks a resumed run’s next attempt as the operator’s, not as a retry after success', async () => {
    const client = terminalClient();
    const { terminal } = showTerminal(client);
    await opened(terminal);
    output(client, 'done\r\n', 0);
    attemptBegins(
      client,
      anAttempt({ number: 2, cause: 'resume', status: 'running', startedAt: '2026-03-02T09:05:10.000Z', outputOffset: 6 }),
      anAttempt({ number: 1, status: 'succeeded', exitCode: 0, endedAt: '2026-03-02T09:00:00.000Z' }),
    );
    output(client, 'carrying on\r\n', 6);
    await vi.waitFor(() => expect(screenLines(terminal)).toEqual(['done', '', '── resumed by you · attempt 2 · 5m 10s later ──', 'carrying on']));
  });

  it('marks where it was skipped forward to catch up, and the footer says how much', async () => {
    const client = terminalClient();
    const { terminal } = showTerminal(client);
    await opened(terminal);
    client.emit('runOutputSkipped', { subscriptionId: 'sub_1', runId: 'run_1', fromOffset: 0, toOffset: 2048, skippedBytes: 2048 });
    output(client, 'the tail\r\n', 2048);
    await vi.waitFor(() =>
      expect(screenLines(terminal)).toEqual(['', '… skipped 2048 bytes (the full output is kept; Load full output shows it) …', 'the tail']),
    );
    expect(within(terminal).getByText('2.0 KB skipped while catching up (kept in full in the ledger).')).toBeTruthy();
  });

  it('Load full output closes the tail, clears the screen and replays from the start', async () => {
    const client = terminalClient({ openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 6, totalBytes: 12, untilOffset: null }) });
    const { user, terminal } = showTerminal(client, { running: false });
    await opened(terminal);
    output(client, 'world\r\n', 6);
    await vi.waitFor(() => expect(screenLines(terminal)).toEqual(['… 6 earlier bytes not shown (Load full output shows them) …', 'world']));

    const full = deferred<Opened>();
    client.answer({ openRunOutput: () => full.promise });
    await user.click(within(terminal).getByRole('button', { name: 'Load full output' }));
    expect(await within(terminal).findByText('Loading the full output…')).toBeTruthy();
    expect(client.inputsOf('closeRunOutput')).toEqual([{ subscriptionId: 'sub_1' }]);
    full.resolve({ subscriptionId: 'sub_2', fromOffset: 0, totalBytes: 12, untilOffset: null });
    output(client, 'hello\r\nworld\r\n', 0, 'sub_2');
    await vi.waitFor(() => expect(screenLines(terminal)).toEqual(['hello', 'world']));
    expect(within(terminal).getByText('Showing the full output.')).toBeTruthy();
    expect(client.inputsOf('openRunOutput').map((input) => input.from)).toEqual(['tail', 'start']);
  });

  it('at the top of a tail, offers Show earlier output (reached with Tab), which reopens a piece further back', async () => {
    const client = terminalClient({ openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 300_000, totalBytes: 300_012, untilOffset: null }) });
    const { user, terminal } = showTerminal(client, { running: false });
    await opened(terminal);
    output(client, 'last lines\r\n', 300_000);
    await vi.waitFor(() => expect(screenLines(terminal)).toEqual(['… 300000 earlier bytes not shown (Load full output shows them) …', 'last lines']));
    // Without a GPU (happy-dom has no WebGL) the DOM renderer draws.
    expect(terminal.querySelector<HTMLElement>('.run-terminal__screen')?.dataset.renderer).toBe('dom');

    const earlier = within(terminal).getByRole('button', { name: 'Show earlier output' });
    within(terminal).getByRole('button', { name: 'Load full output' }).focus();
    await user.tab();
    expect(document.activeElement).toBe(earlier);
    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_2', fromOffset: 37_856, totalBytes: 300_012, untilOffset: null }) });
    await user.keyboard('{Enter}');
    // 256 KiB further back, on a cleared screen; the old subscription is closed.
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput').at(-1)).toEqual({ runId: 'run_1', from: 300_000 - 256 * 1024 }));
    expect(client.inputsOf('closeRunOutput')).toEqual([{ subscriptionId: 'sub_1' }]);
    output(client, 'earlier lines\r\n', 37_856, 'sub_2');
    output(client, 'last lines\r\n', 300_000, 'sub_2');
    await vi.waitFor(() =>
      expect(screenLines(terminal)).toEqual(['… 37856 earlier bytes not shown (Load full output shows them) …', 'earlier lines', 'last lines']),
    );
  });

  it('shows older output of a long run a page at a time, not following live and not taking input, then goes back to live', async () => {
    const kib = 1024;
    const total = 5 * 1024 * kib;
    const client = terminalClient({ openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: total - 256 * kib, totalBytes: total, untilOffset: null }) });
    const { user, terminal } = showTerminal(client, { running: true, canSendInput: true });
    await opened(terminal);
    // One step back still fits the scrollback: reopened live from there.
    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_2', fromOffset: total - 512 * kib, totalBytes: total, untilOffset: null }) });
    await user.click(within(terminal).getByRole('button', { name: 'Show earlier output' }));
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput').at(-1)).toEqual({ runId: 'run_1', from: total - 512 * kib }));
    await opened(terminal);

    // The next would not: the page just before what is shown, and nothing after it.
    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_3', fromOffset: total - 1024 * kib, totalBytes: total, untilOffset: total - 512 * kib }) });
    await user.click(await within(terminal).findByRole('button', { name: 'Show earlier output' }));
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput').at(-1)).toEqual({ runId: 'run_1', from: total - 1024 * kib, until: total - 512 * kib }));
    await opened(terminal);
    output(client, 'an older line\r\n', total - 1024 * kib, 'sub_3');
    await vi.waitFor(() => expect(screenLines(terminal)).toContain('an older line'));
    expect(within(terminal).getByText('Showing 4.0 MB to 4.5 MB of 5.0 MB of output, not following live.')).toBeTruthy();
    // What is typed while a page of history is on screen does not reach the run.
    await user.click(terminal.querySelector<HTMLElement>('.run-terminal__screen')!);
    await user.keyboard('y');
    expect(client.inputsOf('sendRunInput')).toEqual([]);

    // Later: the rest is no longer than a page, so live again from where the page ended.
    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_4', fromOffset: total - 512 * kib, totalBytes: total, untilOffset: null }) });
    await user.click(within(terminal).getByRole('button', { name: 'Show later output' }));
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput').at(-1)).toEqual({ runId: 'run_1', from: total - 512 * kib }));
    await opened(terminal);
    expect(within(terminal).queryByRole('button', { name: 'Back to live output' })).toBeNull();

    // From a page, Back to live output opens the tail.
    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_5', fromOffset: total - 2048 * kib, totalBytes: total, untilOffset: total - 1536 * kib }) });
    const earlier = await within(terminal).findByRole('button', { name: 'Show earlier output' });
    await user.click(earlier);
    await opened(terminal);
    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_6', fromOffset: total - 256 * kib, totalBytes: total, untilOffset: null }) });
    await user.click(await within(terminal).findByRole('button', { name: 'Back to live output' }));
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput').at(-1)).toEqual({ runId: 'run_1', from: 'tail' }));
  });

  it('offers earlier output only at the top of the screen, and none when the output is there from its first byte', async () => {
    const client = terminalClient({ openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 4096, totalBytes: 4096, untilOffset: null }) });
    const { terminal } = showTerminal(client, { running: false });
    await opened(terminal);
    expect(within(terminal).getByRole('button', { name: 'Show earlier output' })).toBeTruthy();
    // More lines than the screen has rows: it follows the end, away from the top.
    output(client, Array.from({ length: 200 }, (_, index) => `line ${index}\r\n`).join(''), 4096);
    await vi.waitFor(() => expect(screenLines(terminal).at(-1)).toBe('line 199'));
    await vi.waitFor(() => expect(within(terminal).queryByRole('button', { name: 'Show earlier output' })).toBeNull());

    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_2', fromOffset: 0, totalBytes: 10, untilOffset: null }) });
    within(terminal).getByRole('button', { name: 'Load full output' }).click();
    await vi.waitFor(() => expect(within(terminal).getByText('Showing the full output.')).toBeTruthy());
    expect(within(terminal).queryByRole('button', { name: 'Show earlier output' })).toBeNull();
  });

  it('after the connection comes back, continues at the next byte on the same screen', async () => {
    const client = terminalClient();
    const { terminal } = showTerminal(client);
    await opened(terminal);
    output(client, 'before the drop\r\n', 0);
    await vi.waitFor(() => expect(screenLines(terminal)).toEqual(['before the drop']));

    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_2', fromOffset: 17, totalBytes: 17, untilOffset: null }) });
    client.setTransportState('reconnecting');
    client.setTransportState('connected');
    await vi.waitFor(() => expect(client.inputsOf('openRunOutput').at(-1)).toEqual({ runId: 'run_1', from: 17 }));
    output(client, 'after it\r\n', 17, 'sub_2');
    await vi.waitFor(() => expect(screenLines(terminal)).toEqual(['before the drop', 'after it']));
  });

  it('says why the output could not be opened, and Try again opens it', async () => {
    const client = terminalClient({
      openRunOutput: () => {
        throw new OperatorError({ code: 'not_found', message: 'This run is not in the console any more.' });
      },
    });
    const { user, terminal } = showTerminal(client);
    expect((await within(terminal).findByRole('alert')).textContent).toBe('Could not open the output. This run is not in the console any more.');

    client.answer({ openRunOutput: () => ({ subscriptionId: 'sub_1', fromOffset: 0, totalBytes: 0, untilOffset: null }) });
    await user.click(within(terminal).getByRole('button', { name: 'Try again' }));
    await vi.waitFor(() => expect(within(terminal).queryByRole('alert')).toBeNull());
    expect(client.inputsOf('openRunOutput')).toHaveLength(2);
  });

  it('while the run takes input, what is typed in the terminal goes to the run', async () => {
    const client = terminalClient();
    const { user, terminal } = showTerminal(client, { canSendInput: true });
    await opened(terminal);
    expect(within(terminal).getByText(/^Typing in the terminal sends input to the run\. Ctrl\+M makes Tab move focus out of the terminal\.$/)).toBeTruthy();

    await user.click(within(terminal).getByRole('textbox', { name: 'Terminal input' }));
    await user.keyboard('y{Enter}');
    await vi.waitFor(() => expect(client.inputsOf('sendRunInput').map((input) => input.data).join('')).toBe('y\r'));
    expect(client.inputsOf('sendRunInput')[0]!.runId).toBe('run_1');
  });

  it('while the run’s SSH host cannot be reached, takes no typing and says why; once it answers, typing goes to the run again', async () => {
    const client = terminalClient();
    let answer: (host: string | null) => void = () => {};
    function HostRun() {
      const [unreachable, setUnreachable] = useState<string | null>('build-box');
      answer = setUnreachable;
      return <RunTerminal runId="run_1" running canSendInput={unreachable === null} hostUnreachable={unreachable} />;
    }
    const { user } = renderInConsole(<HostRun />, { client, route: '/runs/run_1' });
    const terminal = screen.getByRole('region', { name: 'Run output' });
    await opened(terminal);
    const paused = within(terminal).getByRole('status');
    expect(paused.textContent).toBe(
      'Input paused: build-box cannot be reached, so the terminal takes no typing (nothing would reach the run). It takes input again as soon as build-box answers; the output goes on from where it stopped.',
    );
    expect(within(terminal).queryByText(/^Typing in the terminal sends input to the run/)).toBeNull();
    await user.click(within(terminal).getByRole('textbox', { name: 'Terminal input' }));
    await user.keyboard('lost{Enter}');
    expect(client.inputsOf('sendRunInput')).toEqual([]);

    act(() => answer(null));
    await vi.waitFor(() => expect(within(terminal).queryByRole('status')).toBeNull());
    await user.keyboard('y{Enter}');
    await vi.waitFor(() => expect(client.inputsOf('sendRunInput').map((input) => input.data).join('')).toBe('y\r'));
  });

  it('input the core refuses because the run’s host went unreachable makes it read-only, saying why', async () => {
    const refusal = 'build-box cannot be reached right now, so this input was not sent to the run. Its terminal takes input again as soon as build-box answers; the console reconnects by itself.';
    const client = terminalClient({
      sendRunInput: () => {
        throw new OperatorError({ code: 'ssh_failed', reason: 'unreachable', message: refusal });
      },
    });
    const { user, terminal } = showTerminal(client, { canSendInput: true });
    await opened(terminal);
    await user.click(within(terminal).getByRole('textbox', { name: 'Terminal input' }));
    await user.keyboard('a');
    await vi.waitFor(() => expect(within(terminal).getByRole('status').textContent).toBe(`Input paused: ${refusal}`));
    await user.keyboard('bc');
    expect(client.inputsOf('sendRunInput').map((input) => input.data)).toEqual(['a']);
  });
});
