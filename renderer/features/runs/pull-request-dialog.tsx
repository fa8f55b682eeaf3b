import { useId, useRef, useState, type FormEvent } from 'react';
import { DialogFormFooter } from '../../ui/dialog-form-footer';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { useCreatePullRequest } from './use-landing';

/** Create pull request: a title and a body for `gh pr create` on the pushed branch. */
export function PullRequestDialog({
  runId,
  branch,
  initialTitle,
  initialBody,
  onClose,
  onCreated,
}: {
  runId: string;
  branch: string;
  initialTitle: string;
  initialBody: string;
  onClose: () => void;
  onCreated: (url: string) => void;
}) {
  const [title, setTitle] = useState(initialTitle);
  const [body, setBody] = useState(initialBody);
  const [problem, setProblem] = useState<string | undefined>();
  const create = useCreatePullRequest();
  const submission = useSingleSubmit();
  const formId = useId();
  const titleRef = useRef<HTMLInputElement>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      if (!title.trim()) {
        setProblem('A pull request needs a title.');
        titleRef.current?.focus();
        return;
      }
      return create.mutateAsync({ runId, title, body }).then((result) => onCreated(result.url));
    });
  };

  return (
    <ModalDialog
      title="Create pull request"
      description={
        <p className="muted">
          Opens a pull request for <code>{branch}</code> with <code>gh</code>, as you are logged in to it.
        </p>
      }
      onClose={onClose}
      initialFocusRef={titleRef}
      className="landing-dialog"
      footer={<DialogFormFooter formId={formId} saving={submission.pending} submitLabel="Create pull request" onCancel={onClose} />}
    >
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <FormField label="Title" problem={problem}>
          {(control) => (
            <input
              ref={titleRef}
              {...control}
              className="input"
              type="text"
              value={title}
              onChange={(event) => {
                setTitle(event.target.value);
                setProblem(undefined);
              }}
            />
          )}
        </FormField>
        <FormField label="Description">
          {(control) => <textarea {...control} className="textarea landing-dialog__message" rows={6} value={body} onChange={(event) => setBody(event.target.value)} />}
        </FormField>
        {create.isError ? <ErrorAlert error={create.error} prefix="Could not create the pull request." /> : null}
      </form>
    </ModalDialog>
  );
}
