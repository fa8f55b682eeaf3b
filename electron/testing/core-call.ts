import type { ChannelInput, ChannelName, ChannelOutput } from '../../shared/contract';
import type { Core } from '../core';

/**
 * One request to the core, made the way a transport makes it (validated by the contract), typed by the
 * contract: resolves with the channel's answer, or rejects with its error (`code`, `message`, ...).
 */
export async function callCore<C extends ChannelName>(core: Core, channel: C, input?: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const answer = await core.dispatch(channel, input, { transport: 'browser' });
  if (!answer.ok) throw Object.assign(new Error(`${channel}: ${answer.error.code}: ${answer.error.message}`), answer.error);
  // The dispatcher checked the answer against the channel's output schema.
  return answer.value as ChannelOutput<C>;
}
