import type { connectionChannels } from '../../shared/channels/connections';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function connectionHandlers({ connections }: Pick<CoreServices, 'connections'>): ChannelHandlers<typeof connectionChannels> {
  return {
    listConnections: () => connections.list(),
    listConnectionsForAgent: (input) => connections.forAgent(input.agentId),
    createConnection: (input) => connections.create(input),
    updateConnection: ({ connectionId, ...changes }) => connections.update(connectionId, changes),
    deleteConnection: (input) => connections.delete(input.connectionId),
    testConnection: (input) => connections.test(input.connectionId),
    getVaultInfo: () => connections.vaultInfo(),
  };
}
