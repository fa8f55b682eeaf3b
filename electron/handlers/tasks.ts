import type { taskChannels } from '../../shared/channels/tasks';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function taskHandlers({ tasks }: Pick<CoreServices, 'tasks'>): ChannelHandlers<typeof taskChannels> {
  return {
    listTasks: (input) => tasks.list(input),
    getTask: (input) => tasks.get(input.taskId),
    createTask: (input) => tasks.create(input),
    updateTask: ({ taskId, ...changes }) => tasks.update(taskId, changes),
    setTaskArchived: (input) => tasks.setArchived(input.taskId, input.archived),
    importTasks: (input) => tasks.importArtifacts(input.projectId),
  };
}
