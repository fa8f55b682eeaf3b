import { useId, useState } from 'react';
import { useLocation } from 'wouter';
import type { RunDetail } from '../../../shared/entities';
import type { LandingPlan, RunLanding } from '../../../shared/landing';
import { ErrorAlert } from '../../ui/error-alert';
import { formatFullTimestamp, pluralize } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { CommitDialog } from './commit-dialog';
import { DiscardDialog } from './discard-dialog';
import { LandDialog } from './land-dialog';
import { landingStateLabels, landingTone } from './landing-labels';
import { landUnavailableReason, pullRequestBody, shortSha, strategyLabels, webAddress } from './landing-format';
import { PullRequestDialog } from './pull-request-dialog';
import { useLandingPlan, usePushRunBranch, useResolveRunConflicts } from './use-landing';

/**
 * A forge address: a link when it is a web address, else text, and Copy address either way (the
 * browser may be on another machine than the console). In the desktop app the link opens the system
 * browser, for addresses the console recorded on a run only (electron/shell/navigation-guard.ts).
 */
function ForgeLink({ url, children }: { url: string; children: string }) {
  const href = webAddress(url);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  return (
    <span className="run-landing__link">
      {href ? (
        <a href={href} target="_blank" rel="noreferrer">
          {children}
        </a>
      ) : (
        <span>
          {children}: <code>{url}</code>
        </span>
      )}
      <button
        type="button"
        className="button button--small"
        aria-label={`Copy the address of ${children.toLowerCase()}`}
        onClick={() => {
          navigator.clipboard.writeText(url).then(
            () => setCopied('copied'),
            () => setCopied('failed'),
          );
        }}
      >
        Copy address
      </button>
      <span className="muted" aria-live="polite">
        {copied === 'copied' ? 'Copied.' : copied === 'failed' ? 'Could not use the clipboard here.' : ''}
      </span>
    </span>
  );
}

/** Where the run's work stands: not landed, landed (where, how, when, by whom), pushed, discarded, files removed. */
export function LandingState({ landing }: { landing: RunLanding }) {
  const { landed, pushed } = landing;
  return (
    <div className="run-landing__state">
      <span className={`status-badge tone-${landingTone(landing.state)}`}>
        <span className="status-badge__mark" aria-hidden="true" />
        {landingStateLabels[landing.state]}
      </span>
      {landing.state === 'not_landed' ? <span className="muted">The work is only in the run’s own branch.</span> : null}
      {landed ? (
        <span>
          Landed in <strong>{landed.target}</strong> as <code title={landed.commit}>{shortSha(landed.commit)}</code> ({strategyLabels[landed.strategy]}) on{' '}
          {formatFullTimestamp(landed.at)} by {landed.by}.
        </span>
      ) : null}
      {pushed ? (
        <span>
          Pushed <code>{pushed.branch}</code> to {pushed.remote} on {formatFullTimestamp(pushed.at)}.{' '}
          {pushed.compareUrl ? <ForgeLink url={pushed.compareUrl}>Compare on the forge</ForgeLink> : null}
          {pushed.compareUrl && pushed.pullRequestUrl ? ' · ' : null}
          {pushed.pullRequestUrl ? <ForgeLink url={pushed.pullRequestUrl}>Pull request</ForgeLink> : null}
        </span>
      ) : null}
      {landing.discardedAt ? <span>Discarded on {formatFullTimestamp(landing.discardedAt)}.</span> : null}
    </div>
  );
}

/** A button that stays focusable and says why it does nothing now (aria-disabled, described by the reason). */
function ReasonedButton({ label, reason, onClick, className = 'button button--small' }: { label: string; reason: string | null; onClick: () => void; className?: string }) {
  const reasonId = useId();
  return (
    <span className="run-landing__action">
      <button
        type="button"
        className={className}
        aria-disabled={reason ? true : undefined}
        aria-describedby={reason ? reasonId : undefined}
        onClick={() => {
          if (!reason) onClick();
        }}
      >
        {label}
      </button>
      {reason ? (
        <span id={reasonId} className="muted run-landing__reason">
          {reason}
        </span>
      ) : null}
    </span>
  );
}

/** Run conflicts with <branch>: the files, and the two ways on. */
function RunConflicts({ run, plan, onOpenFolder }: { run: RunDetail; plan: LandingPlan; onOpenFolder: () => void }) {
  const headingId = useId();
  const resolve = useResolveRunConflicts();
  const submission = useSingleSubmit();
  const [, navigate] = useLocation();
  return (
    <section className="callout callout--warning run-landing__conflicts" aria-labelledby={headingId}>
      <h3 id={headingId} className="run-landing__conflicts-title">
        Run conflicts with {plan.target}
      </h3>
      <ul aria-label="Conflicting files">
        {plan.conflicts.map((file) => (
          <li key={file}>
            <code>{file}</code>
          </li>
        ))}
      </ul>
      <div className="run-landing__actions">
        <button
          type="button"
          className="button button--small button--primary"
          aria-disabled={submission.pending || undefined}
          onClick={() =>
            submission.submit(() =>
              resolve.mutateAsync({ runId: run.id, target: plan.target }).then((next) => {
                // To the run's new turn: its output, at the top of its page.
                navigate(`/runs/${encodeURIComponent(next.id)}`);
                requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-page-heading]')?.focus());
              }),
            )
          }
        >
          Ask the agent to resolve
        </button>
        <button type="button" className="button button--small" onClick={onOpenFolder}>
          Open folder
        </button>
        <span className="muted" aria-live="polite">
          {resolve.isPending ? 'Starting the agent’s turn…' : ''}
        </span>
      </div>
      {resolve.isError ? <ErrorAlert error={resolve.error} prefix="Could not ask the agent to resolve the conflicts." /> : null}
    </section>
  );
}

type OpenDialog = { kind: 'commit' } | { kind: 'land'; target?: string | undefined } | { kind: 'pull-request' } | { kind: 'discard' };

/**
 * The landing bar in a run's Changes: where the work stands, what the run holds that the project
 * does not have (from the landing plan, the dry run for its base branch), and Commit… Land… Push
 * branch, Create pull request and Discard… as the plan allows.
 */
export function RunLandingBar({
  run,
  actionable,
  landRequest,
  onOpenFolder,
}: {
  run: RunDetail;
  /** False once the run's files are gone (discarded, cleaned up, archived) or while it still runs: the state alone is shown. */
  actionable: boolean;
  /** Open the Land dialog once the plan is read (the `?land=1&target=` route). */
  landRequest?: { target?: string | undefined } | undefined;
  onOpenFolder: () => void;
}) {
  const planQuery = useLandingPlan(run.id, undefined, actionable);
  const plan = planQuery.data;
  const push = usePushRunBranch();
  const pushing = useSingleSubmit();
  const [dialog, setDialog] = useState<OpenDialog | null>(landRequest ? { kind: 'land', target: landRequest.target } : null);
  const [committed, setCommitted] = useState<string | null>(null);
  // What an action answered, until the run's own refetch brings it (keyed by the landing it replaced).
  const [answered, setAnswered] = useState<{ over: RunLanding; landing: RunLanding } | null>(null);
  const landing = answered && answered.over === run.landing ? answered.landing : run.landing;
  const showAnswer = (next: RunLanding) => setAnswered({ over: run.landing, landing: next });

  const closeDialog = () => setDialog(null);
  let body = null;
  if (actionable && planQuery.isPending) body = <Loading what="what the run holds" />;
  else if (actionable && planQuery.isError && !plan) {
    body = <QueryError what="what the run holds and how it lands" error={planQuery.error} onRetry={() => void planQuery.refetch()} />;
  } else if (actionable && plan) {
    const { uncommittedFiles, unlandedCommits } = plan.holdings;
    const pushed = landing.pushed;
    const pullRequestReason = !plan.pullRequests.available
      ? (plan.pullRequests.hint ?? 'Pull requests need gh, installed and logged in.')
      : !pushed
        ? 'Push the branch first.'
        : null;
    body = (
      <>
        {plan.available ? (
          <>
            <ul className="run-landing__holdings" aria-label="What the run holds">
              <li>
                {pluralize(uncommittedFiles.length, 'uncommitted file')}
                {uncommittedFiles.length > 0 ? (
                  <button type="button" className="button button--small" onClick={() => setDialog({ kind: 'commit' })}>
                    Commit…
                  </button>
                ) : null}
              </li>
              <li>{pluralize(unlandedCommits.length, 'commit')} not landed</li>
            </ul>
            <p className="muted live-region" aria-live="polite">
              {committed ?? ''}
            </p>
          </>
        ) : (
          // Not a git project, or the run's store is not there: nothing to commit, land or push.
          <p className="muted">{plan.blockedBy ?? 'This run’s work cannot be landed.'}</p>
        )}
        <div className="run-landing__actions">
          {plan.available ? (
            <>
              <ReasonedButton label="Land…" className="button button--small button--primary" reason={landUnavailableReason(plan)} onClick={() => setDialog({ kind: 'land' })} />
              {plan.remote ? (
                <>
                  <span className="run-landing__action">
                    <button
                      type="button"
                      className="button button--small"
                      aria-disabled={pushing.pending || undefined}
                      onClick={() => pushing.submit(() => push.mutateAsync(run.id).then(showAnswer))}
                    >
                      Push branch
                    </button>
                    <span className="muted" aria-live="polite">
                      {push.isPending ? `Pushing ${plan.pushBranch} to ${plan.remote.name}…` : ''}
                    </span>
                  </span>
                  {pushed?.pullRequestUrl ? null : (
                    <ReasonedButton label="Create pull request" reason={pullRequestReason} onClick={() => setDialog({ kind: 'pull-request' })} />
                  )}
                </>
              ) : (
                <span className="muted">The project has no remote to push to.</span>
              )}
            </>
          ) : null}
          <button type="button" className="button button--small button--danger-quiet" onClick={() => setDialog({ kind: 'discard' })}>
            Discard…
          </button>
        </div>
        {push.isError ? <ErrorAlert error={push.error} prefix="Could not push the branch." /> : null}
        {plan.available && !plan.clean ? <RunConflicts run={run} plan={plan} onOpenFolder={onOpenFolder} /> : null}
        {dialog?.kind === 'commit' ? (
          <CommitDialog
            runId={run.id}
            plan={plan}
            onClose={closeDialog}
            onCommitted={(result) => {
              setCommitted(`Committed ${pluralize(result.files.length, 'file')} as ${shortSha(result.commit)}.`);
              closeDialog();
            }}
          />
        ) : null}
        {dialog?.kind === 'land' ? <LandDialog runId={run.id} basePlan={plan} initialTarget={dialog.target} onClose={closeDialog} /> : null}
        {dialog?.kind === 'pull-request' && pushed ? (
          <PullRequestDialog
            runId={run.id}
            branch={pushed.branch}
            initialTitle={run.taskTitle}
            initialBody={pullRequestBody(plan.landMessage)}
            onClose={closeDialog}
            onCreated={(url) => {
              showAnswer({ ...landing, pushed: { ...pushed, pullRequestUrl: url } });
              closeDialog();
            }}
          />
        ) : null}
        {dialog?.kind === 'discard' ? <DiscardDialog run={run} holdings={plan.holdings} branch={plan.pushBranch} onClose={closeDialog} /> : null}
      </>
    );
  }

  return (
    <div className="run-landing" role="group" aria-label="Landing">
      <LandingState landing={landing} />
      {body}
    </div>
  );
}
