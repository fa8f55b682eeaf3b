import { describe, expect, it } from 'vitest';
import { newTaskPath } from './new-task-route';

describe('newTaskPath', () => {
  it('keeps the project the Tasks page shows', () => {
    expect(newTaskPath('/tasks', 'project=prj_2')).toBe('/tasks?project=prj_2&new=1');
  });

  it('from any other page, leaves the project to the Tasks page', () => {
    expect(newTaskPath('/runs/run_1', 'project=prj_2')).toBe('/tasks?new=1');
  });
});
