import { useId, useRef, useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/contract';
import type { LandingPlan } from '../../../shared/landing';
import { DialogFormFooter } from '../../ui/dialog-form-footer';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { pluralize } from '../../ui/format';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { listFew } from './landing-format';
import { useCommitRunChanges } from './use-landing';

/**
 * Commit…: what the agent left uncommitted goes into a commit on the run's branch, with a message
 * the console proposes (the task title and the agent's final summary) and the operator edits.
 */
export function CommitDialog({
  runId,
  plan,
  onClose,
  onCommitted,
}: {
  runId: string;
  plan: LandingPlan;
  onClose: () => void;
  onCommitted: (result: ChannelOutput<'commitRunChanges'>) => void;
}) {
  const [message, setMessage] = useState(plan.commitMessage);
  const [problem, setProblem] = useState<string | undefined>();
  const commit = useCommitRunChanges();
  const submission = useSingleSubmit();
  const formId = useId();
  const messageRef = useRef<HTMLTextAreaElement>(null);
  const files = plan.holdings.uncommittedFiles;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      if (!message.trim()) {
        setProblem('A commit needs a message.');
        messageRef.current?.focus();
        return;
      }
      return commit.mutateAsync({ runId, message }).then(onCommitted);
    });
  };

  return (
    <ModalDialog
      title="Commit the run’s changes"
      description={
        <p className="muted">
          Commits {pluralize(files.length, 'uncommitted file')} ({listFew(files)}) on the run’s branch <code>{plan.pushBranch}</code>, with your git
          identity from the project’s config as the author.
        </p>
      }
      onClose={onClose}
      initialFocusRef={messageRef}
      className="landing-dialog"
      footer={<DialogFormFooter formId={formId} saving={submission.pending} submitLabel="Commit" onCancel={onClose} />}
    >
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <FormField label="Commit message" problem={problem} hint="The first line is the subject.">
          {(control) => (
            <textarea
              ref={messageRef}
              {...control}
              className="textarea landing-dialog__message"
              rows={8}
              value={message}
              onChange={(event) => {
                setMessage(event.target.value);
                setProblem(undefined);
              }}
            />
          )}
        </FormField>
        {commit.isError ? <ErrorAlert error={commit.error} prefix="Could not commit the changes." /> : null}
      </form>
    </ModalDialog>
  );
}
