import type { projectChannels } from '../../shared/channels/projects';
import { browseDirectory } from '../projects/directory-browser';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function projectHandlers({ projects, operatorHome }: Pick<CoreServices, 'projects' | 'operatorHome'>): ChannelHandlers<typeof projectChannels> {
  return {
    listProjects: () => projects.list(),
    addProject: (input) => projects.add(input),
    removeProject: (input) => projects.remove(input.projectId),
    browseDirectory: (input) => browseDirectory(input?.path, operatorHome),
  };
}
