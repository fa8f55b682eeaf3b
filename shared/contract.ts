import { z } from 'zod';
import { desktopNotificationSchema } from './attention';
import { attemptStartSchema } from './entities';
import { attentionChannels } from './channels/attention';
import { agentChannels } from './channels/agents';
import { connectionChannels } from './channels/connections';
import { environmentChannels } from './channels/environments';
import { hostChannels } from './channels/hosts';
import { landingChannels } from './channels/landing';
import { noticeChannels } from './channels/notices';
import { projectChannels } from './channels/projects';
import { runChannels } from './channels/runs';
import { searchChannels } from './channels/search';
import { setupChannels } from './channels/setup';
import { systemChannels } from './channels/system';
import { taskChannels } from './channels/tasks';
import { usageChannels } from './channels/usage';

/**
 * The contract between the renderer and the core: every request channel and every pushed event, each
 * with its schema. Both transports (Electron IPC and the browser host's WebSocket) validate incoming
 * payloads against these before the core sees them, and the core's answers are parsed against the
 * output schemas before they leave. Nothing else crosses the boundary.
 *
 * The request channels are written by domain in shared/channels/ and joined here into the one list.
 */

/** The largest request payload either transport accepts, in bytes of its JSON encoding. */
export const maxRequestBytes = 1024 * 1024;

export const channels = {
  ...systemChannels,
  ...projectChannels,
  ...setupChannels,
  ...taskChannels,
  ...agentChannels,
  ...environmentChannels,
  ...hostChannels,
  ...connectionChannels,
  ...runChannels,
  ...landingChannels,
  ...noticeChannels,
  ...usageChannels,
  ...attentionChannels,
  ...searchChannels,
} as const;

/**
 * Pushed events. They carry just enough for the renderer to know what to refetch; the data itself
 * comes through request channels (TanStack Query owns it).
 */
export const events = {
  projectsChanged: z.object({}),
  tasksChanged: z.object({}),
  noticesChanged: z.object({ open: z.number().int().min(0) }),
  agentsChanged: z.object({}),
  /** Environments were created, changed or deleted: refetch listEnvironments (and the agents, whose admission may change). */
  environmentsChanged: z.object({}),
  /** SSH hosts were added, tested, trusted or removed: refetch listHosts. */
  hostsChanged: z.object({}),
  /** AI connections were created, changed, tested or deleted: refetch listConnections. */
  connectionsChanged: z.object({}),
  runsChanged: z.object({ runIds: z.array(z.string()) }),
  /** Usage was recorded for these runs: refetch their usage and the Usage page. */
  usageChanged: z.object({ runIds: z.array(z.string()) }),
  /** Budgets were created, changed or deleted, or a period rolled over: refetch listBudgets. */
  budgetsChanged: z.object({}),
  /** The price table changed: every estimate is refetched. */
  pricesChanged: z.object({}),
  /** The console service's state changed (a handover to another version began): refetch getServiceState. */
  serviceStateChanged: z.object({}),
  /** Something needs the operator: show it as a desktop notification (once; see shared/attention.ts). */
  desktopNotification: desktopNotificationSchema,
  /**
   * The desktop app's shell asks its page to open an in-app route (an actionRoute): the operator
   * clicked a desktop notification the shell showed. The core never sends it.
   */
  openRoute: z.object({ route: z.string() }),
  /** New timeline entries for a run: refetch them with listRunEvents. */
  runTimeline: z.object({ runId: z.string() }),
  /** Live output for one subscription (binary on the wire). */
  runOutput: z.object({ subscriptionId: z.string(), runId: z.string(), offset: z.number(), bytes: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'bytes') }),
  /** The viewer fell behind: these bytes were skipped (they are in the ledger); the tail follows. */
  runOutputSkipped: z.object({
    subscriptionId: z.string(),
    runId: z.string(),
    fromOffset: z.number(),
    toOffset: z.number(),
    skippedBytes: z.number(),
  }),
  /**
   * An attempt of the run begins at `offset`: sent in the subscription's order, before the first byte
   * at `offset` (and after a skip past it), so the terminal draws the separator where it belongs. An
   * attempt with no output begins where the next one's output does (or at the end so far).
   */
  runOutputAttempt: attemptStartSchema.extend({ subscriptionId: z.string(), runId: z.string(), offset: z.number() }),
} as const;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type EventName = keyof typeof events;

export type ChannelInput<K extends ChannelName> = z.input<Channels[K]['input']>;
export type ChannelParsedInput<K extends ChannelName> = z.output<Channels[K]['input']>;
export type ChannelOutput<K extends ChannelName> = z.output<Channels[K]['output']>;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

export function isChannelName(value: unknown): value is ChannelName {
  return typeof value === 'string' && Object.hasOwn(channels, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

type RequestMethod<K extends ChannelName> = undefined extends ChannelInput<K>
  ? (input?: ChannelInput<K>) => Promise<ChannelOutput<K>>
  : (input: ChannelInput<K>) => Promise<ChannelOutput<K>>;

export type EventHandler<E extends EventName> = (payload: EventPayload<E>) => void;

/**
 * What the renderer talks to: one method per channel, plus event subscription. The preload bridge
 * implements it in Electron, the WebSocket client in the browser host; the renderer cannot tell which.
 */
export type OperatorApi = { [K in ChannelName]: RequestMethod<K> } & {
  subscribe<E extends EventName>(event: E, handler: EventHandler<E>): () => void;
};

/** The answer to one request, on either transport. */
export type ResponseEnvelope =
  | { ok: true; value: unknown }
  | { ok: false; error: import('./errors').OperatorErrorShape };

/**
 * 'refused': the console answered but no longer accepts this page's token (it was restarted with a
 * new one); the client stops trying, since only the console's new address can help.
 */
export type TransportState = 'connecting' | 'connected' | 'reconnecting' | 'refused';

/** The API plus the state of the transport under it, for the status bar. */
export type OperatorClient = OperatorApi & {
  transportState(): TransportState;
  onTransportState(listener: (state: TransportState) => void): () => void;
};

/**
 * What the Electron preload exposes as `window.operator`. Its methods resolve to the envelope rather
 * than throwing, because an Error crossing contextBridge keeps only its message: the code, reason and
 * action link would be lost. renderer/api/preload-client.ts turns this into an OperatorClient.
 * There is deliberately no generic invoke: only the contract's channels exist.
 */
export type PreloadBridge = { [K in ChannelName]: (input?: unknown) => Promise<ResponseEnvelope> } & {
  subscribe<E extends EventName>(event: E, handler: EventHandler<E>): () => void;
  transportState(): TransportState;
  onTransportState(listener: (state: TransportState) => void): () => void;
};

/** The name of the preload bridge on `window`. */
export const preloadBridgeKey = 'operator';

/** The IPC channel a request channel travels on, and the one pushed events travel on. */
export function ipcChannelFor(name: ChannelName): `operator:${ChannelName}` {
  return `operator:${name}`;
}
export const ipcEventChannel = 'operator:event';
