import { pluralize } from '../../ui/format';
import { fileChangeLabels, type FileChange } from './unified-diff';

/* The labels a changed file carries, in the file list and in its diff's header. */

/** Lines added and removed: `+3 −1` to the eye, in words to a screen reader. */
export function DiffStat({ additions, deletions }: { additions: number; deletions: number }) {
  return (
    <span className="diff-stat">
      <span className="visually-hidden">
        {pluralize(additions, 'line')} added, {deletions} removed
      </span>
      <span aria-hidden="true">
        <span className="diff-stat__added">+{additions}</span> <span className="diff-stat__removed">−{deletions}</span>
      </span>
    </span>
  );
}

export function ChangeLabel({ change }: { change: FileChange }) {
  return <span className={`diff-change diff-change--${change}`}>{fileChangeLabels[change]}</span>;
}

/** Said in words next to a file that holds hidden characters, in the file list and its diff header. */
export function HiddenCharactersFlag() {
  return <span className="hidden-chars-flag">Hidden characters</span>;
}
