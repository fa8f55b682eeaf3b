import type { hostChannels } from '../../shared/channels/hosts';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function hostHandlers({ hosts }: Pick<CoreServices, 'hosts'>): ChannelHandlers<typeof hostChannels> {
  return {
    listHosts: () => hosts.list(),
    addHost: (input) => hosts.add(input.name),
    removeHost: (input) => hosts.remove(input.hostId),
    testHost: (input) => hosts.test(input.hostId),
    trustHostKey: (input) => hosts.trust(input.hostId, input.fingerprint),
  };
}
