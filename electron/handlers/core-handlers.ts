import type { CoreHandlers } from '../transport/request-dispatcher';
import { agentHandlers } from './agents';
import { attentionHandlers } from './attention';
import { connectionHandlers } from './connections';
import type { CoreServices } from './core-services';
import { environmentHandlers } from './environments';
import { hostHandlers } from './hosts';
import { landingHandlers } from './landing';
import { noticeHandlers } from './notices';
import { projectHandlers } from './projects';
import { runHandlers } from './runs';
import { searchHandlers } from './search';
import { setupHandlers } from './setup';
import { systemHandlers } from './system';
import { taskHandlers } from './tasks';
import { usageHandlers } from './usage';

/**
 * Every request channel's handler: one file here per channel file of the contract (shared/channels/),
 * each covering exactly its channels (ChannelHandlers), joined into the one table the dispatcher
 * answers from. Handlers only pass the validated input to a service: what a request does is the
 * service's. A channel added to the contract without a handler does not type-check here.
 */
export function coreHandlers(services: CoreServices): CoreHandlers {
  return {
    ...systemHandlers(services),
    ...projectHandlers(services),
    ...setupHandlers(services),
    ...taskHandlers(services),
    ...agentHandlers(services),
    ...environmentHandlers(services),
    ...hostHandlers(services),
    ...connectionHandlers(services),
    ...runHandlers(services),
    ...landingHandlers(services),
    ...noticeHandlers(services),
    ...usageHandlers(services),
    ...attentionHandlers(services),
    ...searchHandlers(services),
  };
}
