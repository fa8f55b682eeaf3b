import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { channelNames, type ResponseEnvelope } from '../../shared/contract';
import { createMemoryLogger } from '../platform/log';
import { startConsoleService, type RunningService } from '../service/console-service';
import { connectToService, type ServiceConnection } from '../service/service-client';
import { fileAppLocation } from './app-location';
import { ipcMainStandIn, StandInWebContents, type StandInFrame } from './electron-stand-ins';
import { bindIpc } from './ipc-binding';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

const location = fileAppLocation(path.resolve('/opt/operator-console/dist/renderer'));

let dataDir: string;
let rendererDir: string;
let projectDir: string;
let service: RunningService;
let window: StandInWebContents;
let log: ReturnType<typeof createMemoryLogger>;
/** Every request a window's connection carried to the service, to tell whether a refused one ever did. */
let requests: string[];
let unbind: () => void;

/** The shell's connect: the Node client on the service's socket, its requests counted. */
async function connect(): Promise<ServiceConnection> {
  const connection = await connectToService(service.socket.socketPath, { client: 'desktop-app' });
  const request = connection.request.bind(connection);
  return Object.assign(Object.create(connection) as ServiceConnection, {
    request: (channel: string, input?: unknown) => {
      requests.push(channel);
      return request(channel, input);
    },
  });
}

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'oc-ipc-data-'));
  rendererDir = mkdtempSync(path.join(os.tmpdir(), 'oc-ipc-renderer-'));
  projectDir = mkdtempSync(path.join(os.tmpdir(), 'oc-ipc-project-'));
  writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html>');
  log = createMemoryLogger();
  requests = [];
  // A real console service (its core, its socket) in this process; the shell reaches it over the socket.
  service = await startConsoleService(['--data-dir', dataDir], { log, env: { OPERATOR_CONSOLE_RENDERER_DIR: rendererDir }, idleExitMs: 0 });
  window = new StandInWebContents(location.indexUrl);
  unbind = bindIpc({ connect, location, log, appContents: () => [window as unknown as WebContents] });
});

afterEach(async () => {
  unbind();
  await service.stop();
  for (const dir of [dataDir, rendererDir, projectDir]) rmSync(dir, { recursive: true, force: true });
});

/** Until the window has been sent what it waits for (events cross the socket). */
async function sentTo(contents: StandInWebContents, count: number): Promise<unknown[][]> {
  await vi.waitFor(() => expect(contents.sent.length).toBeGreaterThanOrEqual(count), { timeout: 5_000 });
  return contents.sent;
}

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

  it('answers a valid request from the app window through the console service', async () => {
    const answer = await invoke('addProject', { path: projectDir, name: 'Demo' });
    expect(answer).toMatchObject({ ok: true, value: { name: 'Demo' } });
    expect(service.core.ledger.projects.list()).toHaveLength(1);
    expect(requests).toEqual(['addProject']);
  });

  it('tells the page it runs in the desktop app, though the console service also serves browsers', async () => {
    expect(await invoke('getSystemInfo', undefined)).toMatchObject({ ok: true, value: { transport: 'electron' } });
  });

  it('refuses an invalid payload with invalid_request and leaves the ledger unchanged', async () => {
    for (const input of [{ path: 42 }, { path: projectDir, extra: true }, undefined, 'not an object']) {
      const answer = await invoke('addProject', input);
      expect(answer.ok).toBe(false);
      if (!answer.ok) expect(answer.error.code).toBe('invalid_request');
    }
    expect(service.core.ledger.projects.list()).toEqual([]);
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

    expect(requests).toEqual([]);
    expect(service.core.ledger.projects.list()).toEqual([]);
  });

  it('logs a refused sender once, however often it tries', async () => {
    const frame = window.subFrame('https://attacker.example/');
    for (let attempt = 0; attempt < 5; attempt += 1) await invoke('listProjects', undefined, frame);
    expect(log.lines.filter((line) => line.code === 'forbidden_sender')).toHaveLength(1);
  });

  it('pushes the service’s events to each window over its own connection, and none to a closed one', async () => {
    const other = new StandInWebContents(location.indexUrl);
    unbind();
    unbind = bindIpc({ connect, location, log, appContents: () => [window, other] as unknown as WebContents[] });
    expect(await invoke('listProjects', undefined)).toMatchObject({ ok: true });
    expect(await invoke('listProjects', undefined, other.mainFrame, other)).toMatchObject({ ok: true });
    other.destroyed = true;
    other.emit('destroyed');
    service.core.events.emit('noticesChanged', { open: 2 });
    expect(await sentTo(window, 1)).toEqual([['operator:event', 'noticesChanged', { open: 2 }]]);
    expect(other.sent).toEqual([]);
  });

  it('answers disconnected when the service is gone, and says what to do', async () => {
    expect(await invoke('listProjects', undefined)).toMatchObject({ ok: true });
    await service.stop();
    const answer = await invoke('listProjects', undefined);
    expect(answer).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    if (!answer.ok) expect(answer.error.message).toMatch(/start it again; runs it had are stranded and can be resumed/);
  });

  it('keeps desktop notifications back from the page: the shell shows them, so the page would show each twice', async () => {
    expect(await invoke('listProjects', undefined)).toMatchObject({ ok: true });
    service.core.events.emit('desktopNotification', {
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
    service.core.events.emit('noticesChanged', { open: 1 });
    expect(await sentTo(window, 1)).toEqual([['operator:event', 'noticesChanged', { open: 1 }]]);
  });

  it('removes its handlers and stops pushing events when disposed', async () => {
    expect(await invoke('listProjects', undefined)).toMatchObject({ ok: true });
    unbind();
    expect(ipcMainStandIn.handlers.size).toBe(0);
    await vi.waitFor(() => expect(service.socket.clients()).toHaveLength(0));
    service.core.events.emit('projectsChanged', {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(window.sent).toEqual([]);
    unbind = () => {};
  });
});
