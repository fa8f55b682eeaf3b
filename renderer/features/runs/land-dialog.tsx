import { useId, useRef, useState, type FormEvent } from 'react';
import type { ChannelOutput } from '../../../shared/contract';
import type { LandingPlan, LandingStrategy } from '../../../shared/landing';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { ModalDialog } from '../../ui/modal-dialog';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { Loading, QueryError } from '../../ui/query-error';
import { defaultLandTarget, dryRunAnswer, landRefusedReason, shortSha, strategyLabels } from './landing-format';
import { effectiveStrategy, StrategyChoice } from './strategy-choice';
import { TargetBranchField } from './target-branch-field';
import { useLandingPlan, useLandRun } from './use-landing';

type Landed = ChannelOutput<'landRun'>;

/**
 * Land…: the target branch, the strategy, and the dry run's answer for that branch before the
 * button. Choosing another branch asks for its own dry run; Land stays refused while the answer is
 * a conflict or a checkout in the way. Once landed, the dialog says where and what moved.
 */
export function LandDialog({
  runId,
  basePlan,
  initialTarget,
  onClose,
}: {
  runId: string;
  /** The plan for the run's default target (the bar's): its branches and default. */
  basePlan: LandingPlan;
  /** A branch named by the route (`?target=`), else the default. */
  initialTarget?: string | undefined;
  onClose: () => void;
}) {
  const [target, setTarget] = useState(initialTarget ?? defaultLandTarget(basePlan));
  // The bar's plan is the one for its own target: shown at once, and read again as the dialog opens.
  const planQuery = useLandingPlan(runId, target === basePlan.target ? undefined : target);
  const plan = planQuery.data;
  const [chosenStrategy, setChosenStrategy] = useState<LandingStrategy | null>(null);
  // null: the operator has not edited it, so it follows the plan's message for the target.
  const [editedMessage, setEditedMessage] = useState<string | null>(null);
  const [messageProblem, setMessageProblem] = useState<string | undefined>();
  const land = useLandRun();
  const submission = useSingleSubmit();
  const [landed, setLanded] = useState<{ result: Landed; checkoutPath: string | null } | null>(null);
  const formId = useId();
  const reasonId = useId();
  const targetRef = useRef<HTMLSelectElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);

  const fastForward = plan?.fastForward ?? basePlan.fastForward;
  const strategy = effectiveStrategy(chosenStrategy, fastForward);
  const message = editedMessage ?? plan?.landMessage ?? '';
  const refused = plan ? landRefusedReason(plan) : 'The dry run for this branch has not answered yet.';
  const blocked = refused !== null || submission.pending;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      if (refused !== null || !plan) return;
      if (strategy !== 'fast-forward' && !message.trim()) {
        setMessageProblem('A merge or squash commit needs a message.');
        return;
      }
      return land.mutateAsync({ runId, target: plan.target, strategy, ...(strategy === 'fast-forward' ? {} : { message }) }).then((result) => {
        setLanded({ result, checkoutPath: plan.checkout?.path ?? null });
        requestAnimationFrame(() => closeRef.current?.focus());
      });
    });
  };

  if (landed) {
    const where = landed.result.landing.landed;
    return (
      <ModalDialog title="Landed" onClose={onClose} className="landing-dialog" footer={
        <button ref={closeRef} type="button" className="button button--primary" onClick={onClose}>
          Close
        </button>
      }>
        <div role="status" className="callout callout--success">
          <p>
            {where ? (
              <>
                Landed in <strong>{where.target}</strong> as <code title={where.commit}>{shortSha(where.commit)}</code> ({strategyLabels[where.strategy]}).
              </>
            ) : (
              'Landed.'
            )}
          </p>
          <p>
            {landed.result.workingCopyUpdated
              ? `The working copy${landed.checkoutPath ? ` in ${landed.checkoutPath}` : ''} was updated.`
              : 'The branch is not checked out there, so only the branch moved: no working copy was touched.'}
          </p>
        </div>
      </ModalDialog>
    );
  }

  const answer = plan ? dryRunAnswer(plan) : null;
  return (
    <ModalDialog
      title="Land the run’s work"
      description={<p className="muted">A dry run checks the branch first: nothing changes until you press Land.</p>}
      onClose={onClose}
      initialFocusRef={targetRef}
      className="landing-dialog"
      footer={
        <>
          {land.isPending ? <span className="form-card__progress">Landing…</span> : null}
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={formId} className="button button--primary" aria-disabled={blocked || undefined} aria-describedby={refused ? reasonId : undefined}>
            Land
          </button>
        </>
      }
    >
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <TargetBranchField
          branches={basePlan.branches}
          value={target}
          baseBranch={basePlan.baseBranch}
          selectRef={targetRef}
          onChange={(branch) => {
            setTarget(branch);
            land.reset();
          }}
        />

        <StrategyChoice name={`${formId}-strategy`} strategy={strategy} fastForward={fastForward} target={plan?.target ?? target} onChoose={setChosenStrategy} />

        {strategy !== 'fast-forward' ? (
          <FormField label={strategy === 'squash' ? 'Squash commit message' : 'Merge commit message'} problem={messageProblem}>
            {(control) => (
              <textarea
                {...control}
                className="textarea landing-dialog__message"
                rows={6}
                value={message}
                onChange={(event) => {
                  setEditedMessage(event.target.value);
                  setMessageProblem(undefined);
                }}
              />
            )}
          </FormField>
        ) : null}

        <div className="landing-dialog__answer" aria-live="polite">
          {planQuery.isPending ? <Loading what={`the dry run for ${target}`} /> : null}
          {planQuery.isError && !plan ? <QueryError what={`the dry run for ${target}`} error={planQuery.error} onRetry={() => void planQuery.refetch()} /> : null}
          {answer ? (
            <p className={`callout callout--${answer.tone}`}>
              {answer.text}
            </p>
          ) : null}
          {/* The answer above already says why when it is a conflict or a checkout in the way. */}
          {refused ? (
            <p id={reasonId} className={!plan || answer?.tone === 'danger' ? 'visually-hidden' : 'muted'}>
              {refused}
            </p>
          ) : null}
        </div>
        {land.isError ? <ErrorAlert error={land.error} prefix="Could not land the run." /> : null}
      </form>
    </ModalDialog>
  );
}
