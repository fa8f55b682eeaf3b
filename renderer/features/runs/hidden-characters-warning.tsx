import { useId } from 'react';
import {
  hiddenCharactersHeadline,
  hiddenCharactersNamed,
  hiddenCharactersWarnings,
  hiddenCharactersWhere,
  type DiffHiddenCharacters,
  type FileHiddenCharacters,
} from './diff-hidden-characters';
import { RevealedPath } from './revealed-text';

/**
 * The warning over a diff whose added lines or file names hold hidden characters: how many, where,
 * which, and why it matters, with each file a button that takes the operator to its first such line.
 */
export function HiddenCharactersWarning({
  report,
  truncated,
  onJump,
}: {
  report: DiffHiddenCharacters;
  truncated: boolean;
  onJump: (file: FileHiddenCharacters) => void;
}) {
  const titleId = useId();
  return (
    <div className="callout callout--danger hidden-chars-warning" role="alert" aria-labelledby={titleId}>
      <p id={titleId} className="hidden-chars-warning__title">
        Hidden characters in the agent’s changes
      </p>
      <p>
        {hiddenCharactersHeadline(report)} {hiddenCharactersWarnings(report.characters).join(' ')} Each one is shown below as a badge with its
        code point, such as <span className="hidden-char hidden-char--sample">{report.characters[0]?.label ?? 'U+202E'}</span>: read those lines
        closely before you use these changes.
        {truncated ? ' Only the part of the diff shown here was checked.' : ''}
      </p>
      <ul className="hidden-chars-warning__files" aria-label="Files with hidden characters">
        {report.files.map((file) => (
          <li key={file.path}>
            {file.section !== null ? (
              <button type="button" className="diff-files__path" onClick={() => onJump(file)}>
                <RevealedPath path={file.path} />
              </button>
            ) : (
              <code className="diff-files__path diff-files__path--plain">
                <RevealedPath path={file.path} />
              </code>
            )}{' '}
            <span>
              {hiddenCharactersWhere(file)}: {hiddenCharactersNamed(file.characters)}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
