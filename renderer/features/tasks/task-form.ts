import { channels, type ChannelInput } from '../../../shared/contract';
import type { Task } from '../../../shared/entities';

/** What the task form holds: text as typed. Empty artifact fields mean "no artifact". */
export interface TaskFormValues {
  title: string;
  prompt: string;
  planPath: string;
  reviewPath: string;
}

export type TaskFormField = keyof TaskFormValues;
export type TaskFormProblems = Partial<Record<TaskFormField, string>>;

export const emptyTaskForm: TaskFormValues = { title: '', prompt: '', planPath: '', reviewPath: '' };

export function taskFormFromTask(task: Task): TaskFormValues {
  return { title: task.title, prompt: task.prompt, planPath: task.planPath ?? '', reviewPath: task.reviewPath ?? '' };
}

const fieldMessages: Record<TaskFormField, string> = {
  title: 'Give the task a title.',
  prompt: 'Write the prompt: what the agent should do.',
  planPath: 'Use a path inside the project, relative to its folder (for example agent-task/m1/1_login/PLAN-login.md).',
  reviewPath: 'Use a path inside the project, relative to its folder (for example agent-task/m1/1_login/CODE_REVIEW-login.md).',
};

export function createTaskInput(projectId: string, values: TaskFormValues): ChannelInput<'createTask'> {
  const input: ChannelInput<'createTask'> = { projectId, title: values.title.trim(), prompt: values.prompt.trim() };
  const planPath = values.planPath.trim();
  const reviewPath = values.reviewPath.trim();
  if (planPath) input.planPath = planPath;
  if (reviewPath) input.reviewPath = reviewPath;
  return input;
}

/** Only what changed is sent; a cleared artifact field removes the artifact (null). */
export function updateTaskInput(task: Task, values: TaskFormValues): ChannelInput<'updateTask'> {
  const input: ChannelInput<'updateTask'> = { taskId: task.id };
  const title = values.title.trim();
  const prompt = values.prompt.trim();
  const planPath = values.planPath.trim() || null;
  const reviewPath = values.reviewPath.trim() || null;
  if (title !== task.title) input.title = title;
  if (prompt !== task.prompt) input.prompt = prompt;
  if (planPath !== task.planPath) input.planPath = planPath;
  if (reviewPath !== task.reviewPath) input.reviewPath = reviewPath;
  return input;
}

/**
 * Checks the form with the contract's own schema, so the form and the core can never disagree on
 * what is valid; the problems are worded for the field they belong to.
 */
export function taskFormProblems(values: TaskFormValues): TaskFormProblems {
  const parsed = channels.createTask.input.safeParse(createTaskInput('prj_check', values));
  if (parsed.success) return {};
  const problems: TaskFormProblems = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (field === 'title' || field === 'prompt' || field === 'planPath' || field === 'reviewPath') {
      problems[field] ??= fieldMessages[field];
    }
  }
  return problems;
}
