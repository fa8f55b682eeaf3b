import { useId, useRef, useState, type FormEvent } from 'react';
import type { Project, Task } from '../../../shared/entities';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import {
  createTaskInput,
  emptyTaskForm,
  taskFormFromTask,
  taskFormProblems,
  updateTaskInput,
  type TaskFormField,
  type TaskFormProblems,
  type TaskFormValues,
} from './task-form';
import { useCreateTask, useUpdateTask } from './use-tasks';

const fieldOrder: TaskFormField[] = ['title', 'prompt', 'planPath', 'reviewPath'];

/** New task (no `task`) or edit one: the same fields, submitted as "Create task" or "Save task". */
export function TaskFormDialog({ project, task, onClose }: { project: Project; task?: Task; onClose: () => void }) {
  const [values, setValues] = useState<TaskFormValues>(() => (task ? taskFormFromTask(task) : emptyTaskForm));
  const [problems, setProblems] = useState<TaskFormProblems>({});
  const createTask = useCreateTask();
  const updateTask = useUpdateTask();
  const mutation = task ? updateTask : createTask;
  const submission = useSingleSubmit();
  const formId = useId();
  const artifactsHintId = useId();
  const titleRef = useRef<HTMLInputElement>(null);
  const refs = {
    title: titleRef,
    prompt: useRef<HTMLTextAreaElement>(null),
    planPath: useRef<HTMLInputElement>(null),
    reviewPath: useRef<HTMLInputElement>(null),
  };

  const set = (field: TaskFormField) => (event: { target: { value: string } }) => {
    setValues((current) => ({ ...current, [field]: event.target.value }));
    if (problems[field]) setProblems((current) => ({ ...current, [field]: undefined }));
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      const found = taskFormProblems(values);
      setProblems(found);
      const first = fieldOrder.find((field) => found[field]);
      if (first) {
        refs[first].current?.focus();
        return;
      }
      return (task ? updateTask.mutateAsync(updateTaskInput(task, values)) : createTask.mutateAsync(createTaskInput(project.id, values))).then(onClose);
    });
  };

  return (
    <ModalDialog
      title={task ? 'Edit task' : 'New task'}
      description={<p className="muted">In {project.name}</p>}
      onClose={onClose}
      initialFocusRef={titleRef}
      className="task-dialog"
      footer={
        <>
          {submission.pending ? <span className="form-card__progress">{task ? 'Saving…' : 'Creating…'}</span> : null}
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={formId} className="button button--primary" aria-disabled={submission.pending || undefined}>
            {task ? 'Save task' : 'Create task'}
          </button>
        </>
      }
    >
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <FormField label="Title" problem={problems.title}>
          {(control) => (
            <input
              ref={refs.title}
              {...control}
              className="input"
              type="text"
              value={values.title}
              onChange={set('title')}
              autoComplete="off"
            />
          )}
        </FormField>
        <FormField label="Prompt" problem={problems.prompt}>
          {(control) => <textarea ref={refs.prompt} {...control} className="input textarea" rows={7} value={values.prompt} onChange={set('prompt')} />}
        </FormField>
        <p id={artifactsHintId} className="field__hint">
          Optional. Paths relative to the project folder; the agent is told both and works from them.
        </p>
        <FormField label="Plan artifact" problem={problems.planPath} describedBy={artifactsHintId}>
          {(control) => (
            <input
              ref={refs.planPath}
              {...control}
              className="input input--mono"
              type="text"
              value={values.planPath}
              onChange={set('planPath')}
              placeholder="agent-task/…/PLAN-….md"
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </FormField>
        <FormField label="Review artifact" problem={problems.reviewPath} describedBy={artifactsHintId}>
          {(control) => (
            <input
              ref={refs.reviewPath}
              {...control}
              className="input input--mono"
              type="text"
              value={values.reviewPath}
              onChange={set('reviewPath')}
              placeholder="agent-task/…/CODE_REVIEW-….md"
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </FormField>
        {mutation.isError ? <ErrorAlert error={mutation.error} prefix={task ? 'Could not save the task.' : 'Could not create the task.'} /> : null}
      </form>
    </ModalDialog>
  );
}
