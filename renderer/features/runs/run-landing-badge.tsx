import type { RunLanding } from '../../../shared/landing';
import { formatFullTimestamp } from '../../ui/format';
import { landingSummary, landingTone } from './landing-labels';

/** Where a run's work stands, as a chip beside its status; "Files removed" once Clean up took its task root. */
export function RunLandingBadge({ landing }: { landing: RunLanding }) {
  return (
    <span className="landing-badges">
      <span className={`status-badge tone-${landingTone(landing.state)}`} data-landing={landing.state}>
        <span className="status-badge__mark" aria-hidden="true" />
        {landingSummary(landing)}
      </span>
      {landing.filesRemovedAt ? (
        <span className="tag" title={`The run’s files were removed ${formatFullTimestamp(landing.filesRemovedAt)}; its history stays`}>
          Files removed
        </span>
      ) : null}
    </span>
  );
}
