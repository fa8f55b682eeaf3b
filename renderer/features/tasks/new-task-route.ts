import { actionPath } from '../../../shared/routes';

/** The Tasks page opens its New task dialog when its route asks for one (and then drops the ask). */
export const newTaskSearchParam = 'new';

/** The Tasks page's route that opens New task, keeping the project the operator is looking at. */
export function newTaskPath(currentPath: string, currentSearch: string): string {
  const params = new URLSearchParams(currentPath === actionPath({ kind: 'tasks' }) ? currentSearch : '');
  params.set(newTaskSearchParam, '1');
  return `${actionPath({ kind: 'tasks' })}?${params.toString()}`;
}
