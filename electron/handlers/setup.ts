import type { setupChannels } from '../../shared/channels/setup';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function setupHandlers({ projectSetup }: Pick<CoreServices, 'projectSetup'>): ChannelHandlers<typeof setupChannels> {
  return {
    getProjectSetup: (input) => projectSetup.getSetup(input.projectId),
    updateProjectSetup: ({ projectId, ...changes }) => projectSetup.updateSetup(projectId, changes),
    listConsoleVariables: () => projectSetup.consoleVariables(),
    listLayerVariables: (input) => projectSetup.listVariables({ layer: input.layer, id: input.ownerId }),
    setLayerVariables: (input) => projectSetup.setVariables({ layer: input.layer, id: input.ownerId }, input.variables),
  };
}
