import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { channelNames, ipcChannelFor, ipcEventChannel, type EventName, type ResponseEnvelope } from '../../shared/contract';
import { OperatorError } from '../../shared/errors';
import type { Logger } from '../platform/log';
import type { ServiceConnection } from '../service/service-client';
import type { AppLocation } from './app-location';

export interface IpcBindingOptions {
  /**
   * Opens a connection to the console service for one window (electron/service/service-client.ts): the
   * window's requests go over it, and the events the service pushes on it (broadcasts, and the streams
   * that window opened) come back to that window alone.
   */
  connect(): Promise<ServiceConnection>;
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
 * app's own top frame before handing the raw input to the console service over the window's own
 * connection (the service validates it against the contract, as for any client). Events the service
 * pushes go to the window whose connection they came on (but the shell's own, above). A connection
 * the service dropped answers `disconnected`, and the window's next request connects again. Returns a
 * function that unbinds it all.
 */
export function bindIpc(options: IpcBindingOptions): () => void {
  const { location, log } = options;
  const loggedRefusals = new Set<string>();
  const connections = new Map<WebContents, Promise<ServiceConnection>>();

  const connectionFor = (contents: WebContents): Promise<ServiceConnection> => {
    const existing = connections.get(contents);
    if (existing) return existing;
    const connecting = options.connect().then((connection) => {
      connection.onEvent((event, payload) => {
        if (shellOnlyEvents.has(event) || contents.isDestroyed()) return;
        try {
          contents.send(ipcEventChannel, event, payload);
        } catch (error) {
          log.warn('event not delivered', { event, error: error instanceof Error ? error.message : String(error) });
        }
      });
      connection.onClose(() => {
        if (connections.get(contents) === connecting) connections.delete(contents);
      });
      return connection;
    });
    // A failed connection is not kept: the next request tries again.
    connecting.catch(() => connections.delete(contents));
    connections.set(contents, connecting);
    contents.once('destroyed', () => {
      connections.delete(contents);
      void connecting.then((connection) => connection.close()).catch(() => undefined);
    });
    return connecting;
  };

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
      let connection: ServiceConnection;
      try {
        connection = await connectionFor(event.sender);
      } catch (error) {
        log.warn('console service not reachable', { channel: name, error: error instanceof Error ? error.message : String(error) });
        return {
          ok: false,
          error:
            error instanceof OperatorError
              ? error.toShape()
              : { code: 'disconnected', message: 'The console service cannot be reached. Quit the console and start it again; runs it had are stranded and can be resumed.' },
        };
      }
      return connection.request(name, input);
    });
  }

  return () => {
    for (const connecting of connections.values()) void connecting.then((connection) => connection.close()).catch(() => undefined);
    connections.clear();
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

