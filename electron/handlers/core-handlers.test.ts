import { describe, expect, it } from 'vitest';
import type { attentionChannels } from '../../shared/channels/attention';
import { channelNames } from '../../shared/contract';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import { coreHandlers } from './core-handlers';
import type { CoreServices } from './core-services';

const notCalled = () => {
  throw new Error('a handler built for its type is never called');
};

describe('the request handlers', () => {
  it('answer every channel of the contract and nothing else', () => {
    // Building the table only closes over the services; no handler runs, so no service is reached.
    const handlers = coreHandlers({} as CoreServices);
    expect(Object.keys(handlers).sort()).toEqual([...channelNames].sort());
    expect(Object.values(handlers).every((handler) => typeof handler === 'function')).toBe(true);
  });

  it('are typed so that a handlers file covers exactly the channels of its channel file', () => {
    // tsc is the assertion here: an @ts-expect-error that stops erroring fails `npm run typecheck`.
    const exact: ChannelHandlers<typeof attentionChannels> = { getNotificationSettings: notCalled, setNotificationSettings: notCalled };
    // @ts-expect-error a channel of another file (usage's listBudgets) is refused
    const extra: ChannelHandlers<typeof attentionChannels> = { getNotificationSettings: notCalled, setNotificationSettings: notCalled, listBudgets: notCalled };
    // @ts-expect-error a channel of its own file left out is refused
    const missing: ChannelHandlers<typeof attentionChannels> = { getNotificationSettings: notCalled };
    expect(Object.keys(exact)).toEqual(['getNotificationSettings', 'setNotificationSettings']);
    expect([extra, missing]).toHaveLength(2);
  });
});
