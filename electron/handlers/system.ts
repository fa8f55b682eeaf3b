import type { systemChannels } from '../../shared/channels/system';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function systemHandlers({ system }: Pick<CoreServices, 'system'>): ChannelHandlers<typeof systemChannels> {
  return {
    getSystemInfo: (_input, context) => system.info(context.transport === 'electron' ? 'electron' : 'browser'),
    getServiceState: () => system.serviceState(),
    getLogInfo: () => system.logInfo(),
    openLogFolder: () => system.openLogFolder(),
    openDataFolder: () => system.openDataFolder(),
    reportRendererError: (input) => system.reportRendererError(input),
  };
}
