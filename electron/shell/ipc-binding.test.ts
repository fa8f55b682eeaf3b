import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { channelNames, type ResponseEnvelope } from '../../shared/contract';
import { createCore, type Core } from '../core';
import { createMemoryLogger } from '../platform/log';
import { fileAppLocation } from './app-location';
import { ipcMainStandIn, StandInWebContents, type StandInFrame } from './electron-stand-ins';
import { bindIpc } from './ipc-binding';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

const location = fileAppLocation(path.resolve('/opt/operator-console/dist/renderer'));

let dataDir: string;
let projectDir: string;
let core: Core;
let window: StandInWebContents;
let log: ReturnType<typeof createMemoryLogger>;
let dispatch: ReturnType<typeof vi.fn<Core['dispatch']>>;
let unbind: () => void;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'oc-ipc-data-'));
  projectDir = mkdtempSync(path.join(os.tmpdir(), 'oc-ipc-project-'));
  log = createMemoryLogger();
  core = createCore({ dataDir, transport: 'electron', appVersion: 'test', log });
  // The real dispatcher, watched, to tell whether a refused request ever reached the core.
  dispatch = vi.fn(core.dispatch);
  window = new StandInWebContents(location.indexUrl);
  unbind = bindIpc({
    core: { dispatch, events: core.events },
    location,
    log,
    appContents: () => [window as unknown as WebContents],
  });
});

afterEach(async () => {
  unbind();
  await core.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(projectDir, { recursive: true, force: true });
});

/** Calls a channel's handler as ipcMain would for a request from `frame` in `sender`. */
function invoke(channel: string, input: unknown, frame: StandInFrame | null = window.mainFrame, sender = window) {
  const handler = ipcMainStandIn.handlers.get(`operator:${channel}`);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return handler({ sender, senderFrame: frame }, input) as Promise<ResponseEnvelope>;
}

describe('the IPC binding', () => {
  it('registers exactly one handler per contract channel, and no other', () => {
    expect([...ipcMainStandIn.handlers.keys()].sort()).toEqual(channelNames.map((name) => `operator:${name}`).sort());
  });

  it('answers a valid request from the app window through the core', async () => {
    const answer = await invoke('addProject', { path: projectDir, name: 'Demo' });
    expect(answer).toMatchObject({ ok: true, value: { name: 'Demo' } });
    expect(core.ledger.projects.list()).toHaveLength(1);
  });

  it('refuses an invalid payload with invalid_request and leaves the ledger unchanged', async () => {
    for (const input of [{ path: 42 }, { path: projectDir, extra: true }, undefined, 'not an object']) {
      const answer = await invoke('addProject', input);
      expect(answer.ok).toBe(false);
      if (!answer.ok) expect(answer.error.code).toBe('invalid_request');
    }
    expect(core.ledger.projects.list()).toEqual([]);
  });

  it('refuses a subframe, a foreign page, another window and a vanished frame without calling the core', async () => {
    const stranger = new StandInWebContents(location.indexUrl);
    const attempts: Array<[string, StandInFrame | null, StandInWebContents]> = [
      ['subframe at the app page', window.subFrame(location.indexUrl), window],
      ['subframe of a website', window.subFrame('https://attacker.example/'), window],
      ['top frame at another URL', { url: 'https://attacker.example/', parent: null }, window],
      ['window navigated away', { ...window.mainFrame }, window],
      ['not an app window', stranger.mainFrame, stranger],
      ['frame gone', null, window],
    ];
    for (const [label, frame, sender] of attempts) {
      const answer = await invoke('addProject', { path: projectDir }, frame, sender);
      expect(answer, label).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
    }
    // The top frame navigated to a foreign page is the app window's own mainFrame object.
    window.mainFrame.url = 'https://attacker.example/';
    expect(await invoke('listProjects', undefined)).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });

    expect(dispatch).not.toHaveBeenCalled();
    expect(core.ledger.projects.list()).toEqual([]);
  });

  it('logs a refused sender once, however often it tries', async () => {
    const frame = window.subFrame('https://attacker.example/');
    for (let attempt = 0; attempt < 5; attempt += 1) await invoke('listProjects', undefined, frame);
    expect(log.lines.filter((line) => line.code === 'forbidden_sender')).toHaveLength(1);
  });

  it('pushes core events to every live window, and not to closed ones', () => {
    const closed = new StandInWebContents(location.indexUrl);
    closed.destroyed = true;
    unbind();
    unbind = bindIpc({
      core: { dispatch, events: core.events },
      location,
      log,
      appContents: () => [window, closed] as unknown as WebContents[],
    });
    core.events.emit('noticesChanged', { open: 2 });
    expect(window.sent).toEqual([['operator:event', 'noticesChanged', { open: 2 }]]);
    expect(closed.sent).toEqual([]);
  });

  it('keeps desktop notifications back from the page: the shell shows them, so the page would show each twice', () => {
    core.events.emit('desktopNotification', {
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
      at: new Date().toISOString(),
    });
    core.events.emit('noticesChanged', { open: 1 });
    expect(window.sent).toEqual([['operator:event', 'noticesChanged', { open: 1 }]]);
  });

  it('removes its handlers and stops pushing events when disposed', () => {
    unbind();
    expect(ipcMainStandIn.handlers.size).toBe(0);
    core.events.emit('projectsChanged', {});
    expect(window.sent).toEqual([]);
    unbind = () => {};
  });
});
