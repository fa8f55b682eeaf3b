import {
  channelNames,
  channels,
  events,
  type ChannelName,
  type ChannelOutput,
  type ChannelParsedInput,
  type EventHandler,
  type EventName,
  type EventPayload,
  type OperatorClient,
  type TransportState,
} from '../../shared/contract';

/**
 * The transport boundary of a component test, and the only part of the console a test replaces:
 * an OperatorClient whose answers the test gives. It holds to the contract as the core does: every
 * request is parsed with its channel's input schema (a component that sends a request the core
 * would refuse fails its test), and every answer and pushed event with its schema (a fixture that
 * the core could never send fails too).
 */

export type ChannelAnswer<K extends ChannelName> = (input: ChannelParsedInput<K>) => ChannelOutput<K> | Promise<ChannelOutput<K>>;
export type ChannelAnswers = { [K in ChannelName]?: ChannelAnswer<K> };

export interface ChannelCall {
  channel: ChannelName;
  input: unknown;
}

export interface FakeOperatorClient extends OperatorClient {
  /** Every request, in the order sent. */
  readonly calls: ChannelCall[];
  /** The inputs of one channel's requests, in order. */
  inputsOf<K extends ChannelName>(channel: K): ChannelParsedInput<K>[];
  /** Requests of channels the test gave no answer for: each fails the test (see dom-setup.ts). */
  readonly unanswered: ChannelName[];
  /** Gives (or replaces) the answer of channels. */
  answer(answers: ChannelAnswers): void;
  /** Pushes an event, as the core does. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** How many handlers listen to an event now. */
  listeners(event: EventName): number;
  /** The transport goes to `state`, telling whoever listens (the status bar, a terminal). */
  setTransportState(state: TransportState): void;
}

/** Every fake client made in the current test, so that dom-setup.ts can check each was answered. */
export const fakeClientsOfThisTest = new Set<FakeOperatorClient>();

export function fakeOperatorClient(initial: ChannelAnswers = {}): FakeOperatorClient {
  const answers: ChannelAnswers = { ...initial };
  const handlers = new Map<EventName, Set<(payload: unknown) => void>>();
  const transportListeners = new Set<(state: TransportState) => void>();
  const calls: ChannelCall[] = [];
  const unanswered: ChannelName[] = [];
  let transport: TransportState = 'connected';

  const request = async (channel: ChannelName, rawInput: unknown): Promise<unknown> => {
    const input = channels[channel].input.parse(rawInput);
    calls.push({ channel, input });
    const answer = answers[channel] as ((input: unknown) => unknown) | undefined;
    if (!answer) {
      unanswered.push(channel);
      throw new Error(`The test gave no answer for ${channel}`);
    }
    // An OperatorError (or any error) the answer throws reaches the component as the transport's would.
    return channels[channel].output.parse(await answer(input));
  };

  const methods = Object.fromEntries(channelNames.map((channel) => [channel, (input?: unknown) => request(channel, input)]));

  const client = {
    ...methods,
    calls,
    unanswered,
    inputsOf: (channel: ChannelName) => calls.filter((call) => call.channel === channel).map((call) => call.input),
    answer(more: ChannelAnswers) {
      Object.assign(answers, more);
    },
    subscribe<E extends EventName>(event: E, handler: EventHandler<E>) {
      const set = handlers.get(event) ?? new Set();
      handlers.set(event, set);
      const listener = handler as (payload: unknown) => void;
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
    emit<E extends EventName>(event: E, payload: EventPayload<E>) {
      const parsed = events[event].parse(payload);
      for (const handler of [...(handlers.get(event) ?? [])]) handler(parsed);
    },
    listeners: (event: EventName) => handlers.get(event)?.size ?? 0,
    transportState: () => transport,
    onTransportState(listener: (state: TransportState) => void) {
      transportListeners.add(listener);
      return () => {
        transportListeners.delete(listener);
      };
    },
    setTransportState(state: TransportState) {
      transport = state;
      for (const listener of [...transportListeners]) listener(state);
    },
  } as unknown as FakeOperatorClient;
  fakeClientsOfThisTest.add(client);
  return client;
}

/** A promise the test settles when it chooses: an answer that is still on its way. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
