import type { LandingPlan, LandingStrategy } from '../../../shared/landing';
import { pluralize } from '../../ui/format';

/** Landing's words, shared by the Changes' landing bar and its dialogs. Pure, so it is tested without a DOM. */

export const strategyLabels: Record<LandingStrategy, string> = {
  'fast-forward': 'fast-forward',
  merge: 'merge commit',
  squash: 'squash',
};

/** A commit as people read it: its first 7 hex digits (git's own short form). */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** The first few of a list, and how many more: `a, b, c and 2 more`. */
export function listFew(items: readonly string[], few = 3): string {
  const shown = items.slice(0, few).join(', ');
  return items.length > few ? `${shown} and ${items.length - few} more` : shown;
}

/**
 * A forge address the console may show as a link: http(s) only. It is derived from the project's
 * remote URL, which could name any scheme; anything else is shown as text to copy.
 */
export function webAddress(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The branch the Land dialog starts at: the one the run was based on, else the plan's own target. */
export function defaultLandTarget(plan: Pick<LandingPlan, 'baseBranch' | 'branches' | 'target'>): string {
  return plan.baseBranch && plan.branches.includes(plan.baseBranch) ? plan.baseBranch : plan.target;
}

/**
 * Why Land… cannot start from the bar, before any target is chosen: landing is not possible for the
 * run, it left uncommitted work (landing takes commits only), or it has nothing the project lacks.
 */
export function landUnavailableReason(plan: LandingPlan): string | null {
  if (!plan.available) return plan.blockedBy ?? 'This run cannot be landed.';
  const uncommitted = plan.holdings.uncommittedFiles.length;
  if (uncommitted > 0) return `Commit the run’s ${pluralize(uncommitted, 'uncommitted file')} first: landing takes the run’s commits only.`;
  if (plan.holdings.unlandedCommits.length === 0) return 'Nothing to land: the run has no commits that are not landed.';
  return null;
}

export type DryRunAnswer = { tone: 'success' | 'warning' | 'danger'; text: string };

/** The dry run's answer for the plan's target, as the Land dialog says it before the button. */
export function dryRunAnswer(plan: LandingPlan): DryRunAnswer {
  if (!plan.clean) {
    return { tone: 'danger', text: `Conflicts with ${plan.target} in: ${plan.conflicts.join(', ') || 'files git did not name'}.` };
  }
  if (plan.checkout && plan.checkout.blockingFiles.length > 0) {
    return {
      tone: 'danger',
      text: `Blocked: ${plan.checkout.path} has uncommitted changes in: ${plan.checkout.blockingFiles.join(', ')}. Commit or put them aside there first.`,
    };
  }
  const touched = plan.touchedFiles.length > 0 ? `: ${pluralize(plan.touchedFiles.length, 'file')} change` : '';
  const where = plan.checkout
    ? `${plan.target} is checked out in ${plan.checkout.path}, and its working copy is updated.`
    : `${plan.target} is not checked out, so only the branch moves.`;
  return { tone: 'success', text: `Lands cleanly in ${plan.target}${touched}. ${where}` };
}

/** Why Land in the dialog is refused for this plan, or null when it may go. */
export function landRefusedReason(plan: LandingPlan): string | null {
  const unavailable = landUnavailableReason(plan);
  if (unavailable) return unavailable;
  const answer = dryRunAnswer(plan);
  if (answer.tone === 'danger') return plan.clean ? 'Landing would touch uncommitted changes in the checkout.' : `The run conflicts with ${plan.target}.`;
  return null;
}

/** A pull request's body from the landing message: what follows its subject line. */
export function pullRequestBody(landMessage: string): string {
  const [, ...rest] = landMessage.split('\n');
  return rest.join('\n').trim();
}
