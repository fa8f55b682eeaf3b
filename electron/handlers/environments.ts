import type { environmentChannels } from '../../shared/channels/environments';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function environmentHandlers({ environments }: Pick<CoreServices, 'environments'>): ChannelHandlers<typeof environmentChannels> {
  return {
    listEnvironments: () => environments.list(),
    createEnvironment: (input) => environments.create(input),
    updateEnvironment: ({ environmentId, ...changes }) => environments.update(environmentId, changes),
    deleteEnvironment: (input) => environments.delete(input.environmentId),
  };
}
