import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { createClientChannel } from '../events/client-channel';
import { channelNames, ipcChannelFor, ipcEventChannel, type EventName, type ResponseEnvelope } from '../../shared/contract';
import type { Core } from '../core';
import type { Logger } from '../platform/log';
import type { AppLocation } from './app-location';

export interface IpcBindingOptions {
  core: Pick<Core, 'dispatch' | 'events'>;
  location: AppLocation;
  log: Logger;
  /** The webContents of the console's live windows: the only ones that may call, and get events. */
  appContents(): WebContents[];
}

/**
 * Events the shell handles itself and the page must not get: the shell shows desktop notifications
 * with Electron's Notification (desktop-notifier.ts); the page, which shows them in the browser host,
 * would show each a second time.
 */
export const shellOnlyEvents: ReadonlySet<EventName> = new Set<EventName>(['desktopNotification']);

/**
 * The Electron transport: one ipcMain handler per contract channel, each refusing anything but the
 * app's own top frame before handing the raw input to the core's dispatcher (which validates it
 * against the contract). Pushed events go to every live window (but the shell's own, above). Returns a
 * function that unbinds both.
 */
export function bindIpc(options: IpcBindingOptions): () => void {
  const { core, location, log } = options;
  const loggedRefusals = new Set<string>();

  for (const name of channelNames) {
    ipcMain.handle(ipcChannelFor(name), async (event: IpcMainInvokeEvent, input: unknown): Promise<ResponseEnvelope> => {
      const refusal = senderRefusal(event, options.appContents(), location);
      if (refusal) {
        // Logged once per kind of refusal and page, so a hostile frame cannot flood the log.
        const key = `${refusal}|${event.senderFrame?.url ?? ''}`;
        if (!loggedRefusals.has(key) && loggedRefusals.size < 100) {
          loggedRefusals.add(key);
          log.warn('request refused', { transport: 'electron', code: 'forbidden_sender', channel: name, why: refusal });
        }
        return {
          ok: false,
          error: {
            code: 'forbidden_sender',
            message: 'This request did not come from the Operator Console window, so it was refused.',
          },
        };
      }
      return core.dispatch(name, input, { transport: 'electron', client: clientFor(event.sender) });
    });
  }

  // One client per window: streams it opens (live output) go to it alone and end when it is destroyed.
  const clients = new Map<WebContents, ReturnType<typeof createClientChannel>>();
  const clientFor = (contents: WebContents) => {
    let client = clients.get(contents);
    if (!client) {
      const created = createClientChannel((event, payload) => {
        if (!contents.isDestroyed()) contents.send(ipcEventChannel, event, payload);
      });
      clients.set(contents, created);
      contents.once('destroyed', () => {
        clients.delete(contents);
        created.close();
      });
      client = created;
    }
    return client;
  };

  const stopEvents = core.events.listen((name, payload) => {
    if (shellOnlyEvents.has(name)) return;
    for (const contents of options.appContents()) {
      if (contents.isDestroyed()) continue;
      try {
        contents.send(ipcEventChannel, name, payload);
      } catch (error) {
        log.warn('event not delivered', { event: name, error: error instanceof Error ? error.message : String(error) });
      }
    }
  });

  return () => {
    stopEvents();
    for (const client of clients.values()) client.close();
    clients.clear();
    for (const name of channelNames) ipcMain.removeHandler(ipcChannelFor(name));
  };
}

/**
 * Why a request must be refused, or undefined when it came from the top frame of one of the app's
 * windows while that frame shows the app's own page. A subframe (an iframe an attacker managed to
 * insert) or a window that was navigated away is refused, whatever its preload could reach.
 */
export function senderRefusal(
  event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>,
  appContents: readonly WebContents[],
  location: AppLocation,
): string | undefined {
  const frame = event.senderFrame;
  if (!frame) return 'the sending frame is gone';
  const contents = appContents.find((candidate) => candidate === event.sender);
  if (!contents) return 'not an Operator Console window';
  // Electron keeps one WebFrameMain object per frame, so identity tells the top frame apart.
  if (frame.parent !== null || frame !== contents.mainFrame) return 'not the top frame';
  if (!location.isAppPage(frame.url)) return 'not the Operator Console page';
  return undefined;
}

