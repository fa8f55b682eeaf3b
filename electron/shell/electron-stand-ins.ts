/**
 * Stand-ins for the parts of the `electron` module the shell uses, for unit tests on plain Node (the
 * Electron binary is not available everywhere the tests run). Tests install them with
 *   vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);
 * They behave like Electron where the shell depends on it (one handler per ipcMain channel, listeners
 * called with Electron's arguments) and record what the shell did.
 */

type Listener = (...args: never[]) => unknown;

class StandInEmitter {
  readonly listeners = new Map<string, Listener[]>();

  on(name: string, listener: Listener): this {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
    return this;
  }

  once(name: string, listener: Listener): this {
    const wrapped = ((...args: never[]) => {
      this.removeListener(name, wrapped);
      return listener(...args);
    }) as Listener;
    return this.on(name, wrapped);
  }

  removeListener(name: string, listener: Listener): this {
    this.listeners.set(
      name,
      (this.listeners.get(name) ?? []).filter((candidate) => candidate !== listener),
    );
    return this;
  }

  emit(name: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(name) ?? []) (listener as (...values: unknown[]) => unknown)(...args);
  }

  listenerCount(name: string): number {
    return this.listeners.get(name)?.length ?? 0;
  }
}

export interface StandInFrame {
  url: string;
  parent: StandInFrame | null;
}

export class StandInWebContents extends StandInEmitter {
  readonly mainFrame: StandInFrame;
  readonly sent: unknown[][] = [];
  destroyed = false;
  windowOpenHandler: ((details: { url: string }) => unknown) | undefined;

  constructor(url: string) {
    super();
    this.mainFrame = { url, parent: null };
  }

  subFrame(url: string): StandInFrame {
    return { url, parent: this.mainFrame };
  }

  send(...args: unknown[]): void {
    this.sent.push(args);
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  setWindowOpenHandler(handler: (details: { url: string }) => unknown): void {
    this.windowOpenHandler = handler;
  }

  getURL(): string {
    return this.mainFrame.url;
  }
}

/** A Chromium-style navigation event, as will-navigate and will-redirect receive it. */
export function navigationEvent(url: string): { url: string; preventDefault(): void; defaultPrevented: boolean } {
  const event = {
    url,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;

export const ipcMainStandIn = {
  handlers: new Map<string, InvokeHandler>(),
  handle(channel: string, handler: InvokeHandler): void {
    // Electron throws on a second handler for a channel; so does the stand-in.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  },
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  },
};

class StandInIpcRenderer extends StandInEmitter {
  /** Tests replace this to route requests (for instance to ipcMainStandIn's handlers). */
  invokeImplementation: (channel: string, ...args: unknown[]) => Promise<unknown> = () =>
    Promise.reject(new Error('No handler registered'));
  readonly invoked: Array<{ channel: string; args: unknown[] }> = [];

  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    this.invoked.push({ channel, args });
    return this.invokeImplementation(channel, ...args);
  }
}

export const ipcRendererStandIn = new StandInIpcRenderer();

export const contextBridgeStandIn = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown): void {
    if (this.exposed.has(key)) throw new Error(`Cannot bind an API on top of an existing property on the window object`);
    this.exposed.set(key, api);
  },
};

export const nativeThemeStandIn = Object.assign(new StandInEmitter(), { shouldUseDarkColors: false });

export class StandInSession {
  headersListener: ((details: { url: string; responseHeaders?: Record<string, string[]> }, callback: (response: unknown) => void) => void) | undefined;
  permissionRequestHandler: ((...args: never[]) => void) | undefined;
  permissionCheckHandler: ((...args: never[]) => boolean) | undefined;

  readonly webRequest = {
    onHeadersReceived: (listener: NonNullable<StandInSession['headersListener']>) => {
      this.headersListener = listener;
    },
  };

  setPermissionRequestHandler(handler: (...args: never[]) => void): void {
    this.permissionRequestHandler = handler;
  }

  setPermissionCheckHandler(handler: (...args: never[]) => boolean): void {
    this.permissionCheckHandler = handler;
  }
}

/**
 * safeStorage: "encrypts" by reversing the bytes behind a marker, so a test can tell a sealed value
 * from the plain one and see it round-trip. Tests set `available` and `backend` as the OS would.
 */
export const safeStorageStandIn = {
  available: true,
  backend: 'gnome_libsecret' as 'basic_text' | 'gnome_libsecret' | 'kwallet' | 'kwallet5' | 'kwallet6' | 'unknown',
  encrypted: 0,
  decrypted: 0,
  isEncryptionAvailable(): boolean {
    return this.available;
  },
  getSelectedStorageBackend() {
    return this.backend;
  },
  encryptString(plainText: string): Buffer {
    if (!this.available) throw new Error('Encryption is not available.');
    this.encrypted += 1;
    return Buffer.concat([Buffer.from('sealed:'), Buffer.from(plainText, 'utf8').reverse()]);
  },
  decryptString(encrypted: Buffer): string {
    if (!encrypted.subarray(0, 7).equals(Buffer.from('sealed:'))) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    this.decrypted += 1;
    return Buffer.from(encrypted.subarray(7)).reverse().toString('utf8');
  },
};

export const electronStandIn = {
  ipcMain: ipcMainStandIn,
  ipcRenderer: ipcRendererStandIn,
  contextBridge: contextBridgeStandIn,
  nativeTheme: nativeThemeStandIn,
  safeStorage: safeStorageStandIn,
};
