import type { LandingState, RunLanding } from '../../../shared/landing';
import type { StatusTone } from '../../ui/run-status';

/** How a run's landing state reads in the Runs list, Compare and Clean up: words first, colour second. */
export const landingStateLabels: Record<LandingState, string> = {
  not_landed: 'Not landed',
  landed: 'Landed',
  pushed: 'Pushed',
  discarded: 'Discarded',
};

const landingTones: Record<LandingState, StatusTone> = {
  not_landed: 'neutral',
  landed: 'success',
  pushed: 'success',
  discarded: 'muted',
};

export function landingTone(state: LandingState): StatusTone {
  return landingTones[state];
}

/** The short form of where a run's work stands: `Landed → main`, `Pushed → origin/run-1`, `Not landed`. */
export function landingSummary(landing: RunLanding): string {
  if (landing.state === 'pushed' && landing.pushed) return `Pushed → ${landing.pushed.remote}/${landing.pushed.branch}`;
  if ((landing.state === 'landed' || landing.state === 'pushed') && landing.landed) return `Landed → ${landing.landed.target}`;
  return landingStateLabels[landing.state];
}
