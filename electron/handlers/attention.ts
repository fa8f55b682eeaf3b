import type { attentionChannels } from '../../shared/channels/attention';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function attentionHandlers({ attention }: Pick<CoreServices, 'attention'>): ChannelHandlers<typeof attentionChannels> {
  return {
    getNotificationSettings: () => attention.settings(),
    setNotificationSettings: (input) => attention.setSettings(input),
  };
}
