/**
 * The prompt a run hands the agent's CLI.
 *
 * A task imported from a task loop carries two active artifacts: the PLAN the worker implements and
 * the CODE_REVIEW file the official reviewer fills in afterwards. The worker is the implementer, not
 * the loop: if it re-dispatched the task, wrote its own verdict, or archived/moved the artifacts, the
 * official review would lose its inputs. So the prompt says exactly that, in words a test can pin.
 */

export interface WorkerPromptTask {
  title: string;
  prompt: string;
  planPath: string | null;
  reviewPath: string | null;
}

export function buildWorkerPrompt(task: WorkerPromptTask): string {
  const title = task.title.trim();
  const body = task.prompt.trim();
  const planPath = task.planPath?.trim() || null;
  const reviewPath = task.reviewPath?.trim() || null;

  if (planPath === null && reviewPath === null) {
    if (title === '') return body;
    if (body === '') return title;
    return `${title}\n\n${body}`;
  }

  const lines: string[] = [];
  lines.push(`Task: ${title === '' ? '(untitled)' : title}`);
  lines.push('');
  lines.push('This is a direct implementing-worker assignment: you implement this task yourself, in this working directory.');
  lines.push('');
  lines.push('Active artifacts:');
  if (planPath !== null) lines.push(`- Plan (read it and implement it): ${planPath}`);
  if (reviewPath !== null) lines.push(`- Code review (the official reviewer fills it in after you): ${reviewPath}`);
  lines.push('');
  lines.push('Rules:');
  lines.push('- Work only from the plan; do not invoke a task-loop dispatcher, and do not hand the task to another agent or loop.');
  lines.push('- Do not append a review verdict to the code review file, and do not write a review of your own work there.');
  lines.push('- Do not archive, move, rename, or delete either active artifact; leave both where they are for the official review.');
  lines.push('- When the implementation is done, stop and summarise what you changed.');
  if (body !== '') {
    lines.push('');
    lines.push('Task instructions:');
    lines.push(body);
  }
  return lines.join('\n');
}
