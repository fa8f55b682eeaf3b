import type { PreloadBridge } from '../../shared/contract';

declare global {
  interface Window {
    /**
     * The Electron preload's bridge (electron/preload.ts); undefined in a plain browser. It answers with
     * envelopes, not values: use getOperatorClient() rather than this directly.
     */
    operator: PreloadBridge | undefined;
  }
}

export {};
