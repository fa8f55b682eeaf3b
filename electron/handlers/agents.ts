import type { agentChannels } from '../../shared/channels/agents';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function agentHandlers({ agents }: Pick<CoreServices, 'agents'>): ChannelHandlers<typeof agentChannels> {
  return {
    getCatalog: () => agents.catalogView(),
    listAgents: () => agents.list(),
    getAgent: (input) => agents.get(input.agentId),
    createAgent: (input) => agents.create(input),
    checkAgentDraft: (input) => agents.checkDraft(input),
    updateAgent: ({ agentId, ...changes }) => agents.update(agentId, changes),
    deleteAgent: (input) => agents.delete(input.agentId),
    testAgent: (input) => agents.test(input.agentId),
    verifyAgent: (input) => agents.verify(input.agentId),
    getAgentCliVersion: (input) => agents.cliVersion(input.agentId),
    setAgentConnection: (input) => agents.setConnection(input.agentId, input.connectionId),
  };
}
