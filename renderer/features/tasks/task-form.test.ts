import { describe, expect, it } from 'vitest';
import { channels } from '../../../shared/contract';
import type { Task } from '../../../shared/entities';
import { createTaskInput, emptyTaskForm, taskFormFromTask, taskFormProblems, updateTaskInput } from './task-form';

const task: Task = {
  id: 'tsk_1',
  projectId: 'prj_1',
  title: 'Fix login',
  prompt: 'Make the login form accept email addresses.',
  planPath: 'agent-task/m1/1_login/PLAN-login.md',
  reviewPath: null,
  archived: false,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  latestRun: null,
};

describe('task form', () => {
  it('asks for a title and a prompt', () => {
    expect(Object.keys(taskFormProblems(emptyTaskForm)).sort()).toEqual(['prompt', 'title']);
    expect(taskFormProblems({ ...emptyTaskForm, title: '  ', prompt: 'Do it' }).title).toMatch(/title/);
  });

  it('refuses artifact paths outside the project, as the core does', () => {
    const values = { title: 'T', prompt: 'P', planPath: '/etc/passwd', reviewPath: '../elsewhere/REVIEW.md' };
    const problems = taskFormProblems(values);
    expect(problems.planPath).toMatch(/inside the project/);
    expect(problems.reviewPath).toMatch(/inside the project/);
  });

  it('leaves empty artifact fields out of a new task', () => {
    const input = createTaskInput('prj_1', { title: ' T ', prompt: 'P', planPath: ' ', reviewPath: 'agent-task/R.md' });
    expect(input).toEqual({ projectId: 'prj_1', title: 'T', prompt: 'P', reviewPath: 'agent-task/R.md' });
    expect(channels.createTask.input.safeParse(input).success).toBe(true);
  });

  it('sends only the changes of an edit, and null for a removed artifact', () => {
    const values = { ...taskFormFromTask(task), planPath: '', title: 'Fix the login' };
    const input = updateTaskInput(task, values);
    expect(input).toEqual({ taskId: 'tsk_1', title: 'Fix the login', planPath: null });
    expect(channels.updateTask.input.safeParse(input).success).toBe(true);
    expect(updateTaskInput(task, taskFormFromTask(task))).toEqual({ taskId: 'tsk_1' });
  });
});
