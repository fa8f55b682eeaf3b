import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WebContents } from 'electron';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { wrapPreloadBridge } from '../../renderer/api/preload-client';
import { channelNames, type PreloadBridge } from '../../shared/contract';
import { OperatorError } from '../../shared/errors';
import { createMemoryLogger } from '../platform/log';
import { startConsoleService, type RunningService } from '../service/console-service';
import { connectToService } from '../service/service-client';
import { fileAppLocation } from './app-location';
import { contextBridgeStandIn, ipcMainStandIn, ipcRendererStandIn, StandInWebContents } from './electron-stand-ins';
import { bindIpc } from './ipc-binding';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

// The preload runs on import, as it does when Electron loads it into the page.
await import('../preload');

const bridge = contextBridgeStandIn.exposed.get('operator') as PreloadBridge;

describe('the preload bridge', () => {
  it('exposes window.operator and nothing else', () => {
    expect([...contextBridgeStandIn.exposed.keys()]).toEqual(['operator']);
  });

  it('has exactly one method per contract channel plus subscription and transport state: no generic invoke', () => {
    expect(Object.keys(bridge).sort()).toEqual(
      [...channelNames, 'subscribe', 'transportState', 'onTransportState'].sort(),
    );
    for (const name of ['invoke', 'send', 'on', 'ipcRenderer', 'sendSync']) expect(bridge).not.toHaveProperty(name);
    for (const value of Object.values(bridge)) expect(typeof value).toBe('function');
  });

  it('sends each method on its own operator: channel', async () => {
    ipcRendererStandIn.invokeImplementation = () => Promise.resolve({ ok: true, value: [] });
    await expect(bridge.listProjects()).resolves.toEqual({ ok: true, value: [] });
    expect(ipcRendererStandIn.invoked.at(-1)).toEqual({ channel: 'operator:listProjects', args: [undefined] });
  });

  it('answers with an error value when the main process has no handler (it is quitting)', async () => {
    ipcRendererStandIn.invokeImplementation = () => Promise.reject(new Error("No handler registered for 'operator:listRuns'"));
    await expect(bridge.listRuns()).resolves.toMatchObject({ ok: false, error: { code: 'disconnected' } });
  });

  it('delivers only the subscribed event, with its payload alone, until unsubscribed', () => {
    const seen: unknown[] = [];
    const unsubscribe = bridge.subscribe('noticesChanged', (payload) => seen.push(payload));
    const ipcEvent = { sender: 'must not reach the page' };
    ipcRendererStandIn.emit('operator:event', ipcEvent, 'projectsChanged', {});
    ipcRendererStandIn.emit('operator:event', ipcEvent, 'noticesChanged', { open: 3 });
    unsubscribe();
    ipcRendererStandIn.emit('operator:event', ipcEvent, 'noticesChanged', { open: 4 });
    expect(seen).toEqual([{ open: 3 }]);
    // One IPC listener serves every subscription.
    bridge.subscribe('runsChanged', () => {});
    expect(ipcRendererStandIn.listenerCount('operator:event')).toBe(1);
  });

  it('refuses to subscribe to an event the contract does not have', () => {
    expect(() => bridge.subscribe('anything' as 'projectsChanged', () => {})).toThrow(TypeError);
  });

  it('reports the IPC transport as connected', () => {
    expect(bridge.transportState()).toBe('connected');
  });
});

describe('the renderer client over the preload, IPC binding and a real console service', () => {
  let service: RunningService;
  let dataDir: string;
  let rendererDir: string;
  let projectDir: string;
  let unbind: () => void;
  const location = fileAppLocation(path.resolve('/opt/operator-console/dist/renderer'));
  const window = new StandInWebContents(location.indexUrl);

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'oc-preload-data-'));
    rendererDir = mkdtempSync(path.join(os.tmpdir(), 'oc-preload-renderer-'));
    projectDir = mkdtempSync(path.join(os.tmpdir(), 'oc-preload-project-'));
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html>');
    service = await startConsoleService(['--data-dir', dataDir], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: rendererDir }, idleExitMs: 0 });
    unbind = bindIpc({
      connect: () => connectToService(service.socket.socketPath, { client: 'desktop-app' }),
      location,
      log: createMemoryLogger(),
      appContents: () => [window as unknown as WebContents],
    });
    // What Electron does between ipcRenderer.invoke in the page and ipcMain.handle in the main process.
    ipcRendererStandIn.invokeImplementation = async (channel, ...args) => {
      const handler = ipcMainStandIn.handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return await handler({ sender: window, senderFrame: window.mainFrame }, ...args);
    };
  });

  afterAll(async () => {
    unbind();
    await service.stop();
    for (const dir of [dataDir, rendererDir, projectDir]) rmSync(dir, { recursive: true, force: true });
  });

  it('resolves to values and rejects with OperatorError carrying the code', async () => {
    const client = wrapPreloadBridge(bridge);
    const project = await client.addProject({ path: projectDir, name: 'Demo' });
    expect(project.name).toBe('Demo');
    expect(await client.listProjects()).toHaveLength(1);

    const invalid = await client.addProject({ path: 42 as unknown as string }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(OperatorError);
    expect((invalid as OperatorError).code).toBe('invalid_request');

    const duplicate = await client.addProject({ path: projectDir }).catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: 'project_exists', actionUrl: '#/settings/projects' });
    expect(await client.listProjects()).toHaveLength(1);
  });

  it('hears the service’s events through its subscription', async () => {
    const client = wrapPreloadBridge(bridge);
    const seen: unknown[] = [];
    const unsubscribe = client.subscribe('projectsChanged', (payload) => seen.push(payload));
    const before = window.sent.length;
    service.core.events.emit('projectsChanged', {});
    await vi.waitFor(() => expect(window.sent.length).toBeGreaterThan(before));
    // The stand-in window recorded the send; deliver it to the page as Electron would.
    const [channel, ...args] = window.sent.at(-1) ?? [];
    ipcRendererStandIn.emit(channel as string, {}, ...args);
    unsubscribe();
    expect(seen).toEqual([{}]);
  });
});
