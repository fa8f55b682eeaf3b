import { landingStrategies, type LandingStrategy } from '../../../shared/landing';
import { Choice } from '../../ui/choice';

const strategyNames: Record<LandingStrategy, string> = {
  'fast-forward': 'Fast-forward',
  merge: 'Merge commit',
  squash: 'Squash',
};

const strategyHints: Record<LandingStrategy, string> = {
  'fast-forward': 'Moves the branch to the run’s last commit: no new commit, the run’s commits as they are.',
  merge: 'A merge commit joins the run’s commits to the branch.',
  squash: 'One new commit on the branch holds all of the run’s work.',
};

/**
 * How a run lands, as both Land dialogs (the run's Changes, Compare) ask it: fast-forward is offered
 * only when the dry run says the branch can simply move, and says why not otherwise.
 */
export function StrategyChoice({
  name,
  strategy,
  fastForward,
  target,
  onChoose,
}: {
  /** The radio group's name (one per dialog). */
  name: string;
  strategy: LandingStrategy;
  fastForward: boolean;
  target: string;
  onChoose: (strategy: LandingStrategy) => void;
}) {
  return (
    <fieldset className="form-section">
      <legend className="form-section__legend">Strategy</legend>
      <div className="choice-list">
        {landingStrategies.map((candidate) => (
          <Choice
            key={candidate}
            type="radio"
            name={name}
            value={candidate}
            checked={strategy === candidate}
            onChange={(checked) => {
              if (checked) onChoose(candidate);
            }}
            label={strategyNames[candidate]}
            hint={candidate === 'fast-forward' && !fastForward ? `Not possible: ${target} has commits the run does not have.` : strategyHints[candidate]}
            disabled={candidate === 'fast-forward' && !fastForward}
          />
        ))}
      </div>
    </fieldset>
  );
}

/** The strategy a dialog lands with: the operator's choice, unless fast-forward is no longer possible. */
export function effectiveStrategy(chosen: LandingStrategy | null, fastForward: boolean): LandingStrategy {
  if (chosen === 'fast-forward' && !fastForward) return 'merge';
  return chosen ?? (fastForward ? 'fast-forward' : 'merge');
}
