import {
  channelNames,
  preloadBridgeKey,
  type OperatorClient,
  type PreloadBridge,
  type ResponseEnvelope,
} from '../../shared/contract';
import { OperatorError, operatorErrorSchema } from '../../shared/errors';

/**
 * The Electron preload bridge (`window.operator`) when the page runs in the desktop app; undefined in
 * a plain browser, where the WebSocket client is used instead.
 */
export function findPreloadBridge(scope: object = globalThis): PreloadBridge | undefined {
  const candidate = (scope as Record<string, unknown>)[preloadBridgeKey];
  return typeof candidate === 'object' && candidate !== null ? (candidate as PreloadBridge) : undefined;
}

/**
 * Turns the preload's envelope-returning methods into the OperatorClient the renderer uses: a value on
 * success, an OperatorError (with its code, reason and action link) on failure. The preload cannot
 * throw these itself, because contextBridge strips everything but the message from a thrown Error.
 */
export function wrapPreloadBridge(bridge: PreloadBridge): OperatorClient {
  const requests = Object.fromEntries(
    channelNames.map((name) => [
      name,
      async (input?: unknown) => unwrapEnvelope(await bridge[name](input)),
    ]),
  );
  return {
    ...requests,
    subscribe: (event, handler) => bridge.subscribe(event, handler),
    transportState: () => bridge.transportState(),
    onTransportState: (listener) => bridge.onTransportState(listener),
  } as OperatorClient;
}

export function unwrapEnvelope(envelope: ResponseEnvelope): unknown {
  if (envelope.ok) return envelope.value;
  const shape = operatorErrorSchema.safeParse(envelope.error);
  // An error shape the contract does not know is still an error the operator must see, not a crash.
  throw new OperatorError(
    shape.success ? shape.data : { code: 'internal', message: 'The console answered with an error it could not describe.' },
  );
}
