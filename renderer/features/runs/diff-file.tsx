import { useState } from 'react';
import type { HiddenCharacter } from '../../../shared/hidden-characters';
import { ChangeLabel, DiffStat, HiddenCharactersFlag } from './diff-file-labels';
import { RevealedPath, RevealedText } from './revealed-text';
import { fileLinesStep, type DiffFileSection, type DiffRow } from './unified-diff';

const rowMarks: Record<Exclude<DiffRow['kind'], 'hunk' | 'note'>, string> = { added: '+', removed: '-', context: ' ' };

export interface RowHiddenCharacters {
  /** The characters to draw in each row that has any. */
  shown: ReadonlyMap<number, HiddenCharacter[]>;
  /** Added rows that hold a character worth warning about. */
  marked: ReadonlySet<number>;
  /** The element id of a marked row, so the warning can take the operator to it. */
  rowId: (row: number) => string;
}

function DiffLines({ rows, hiddenCharacters }: { rows: readonly DiffRow[]; hiddenCharacters: RowHiddenCharacters }) {
  return (
    <pre className="diff-lines">
      <span className="diff-lines__inner">
        {rows.map((row, index) => {
          const characters = hiddenCharacters.shown.get(index);
          if (row.kind === 'hunk') {
            return (
              <span key={index} className="diff-line diff-line--hunk">
                <span className="diff-line__number" aria-hidden="true" />
                <span className="diff-line__number" aria-hidden="true" />
                <span className="diff-line__text">
                  <RevealedText text={row.text} characters={characters} />
                </span>
              </span>
            );
          }
          if (row.kind === 'note') {
            return (
              <span key={index} className="diff-line diff-line--note">
                <span className="diff-line__number" aria-hidden="true" />
                <span className="diff-line__number" aria-hidden="true" />
                <span className="diff-line__text">\ {row.text}</span>
              </span>
            );
          }
          const marked = hiddenCharacters.marked.has(index);
          return (
            <span
              key={index}
              className={`diff-line diff-line--${row.kind}${marked ? ' diff-line--hidden-chars' : ''}`}
              {...(marked ? { id: hiddenCharacters.rowId(index), tabIndex: -1, title: 'This line holds hidden characters' } : {})}
            >
              <span className="diff-line__number" aria-hidden="true">
                {row.oldLine ?? ''}
              </span>
              <span className="diff-line__number" aria-hidden="true">
                {row.newLine ?? ''}
              </span>
              <span className="diff-line__mark">{rowMarks[row.kind]}</span>
              <span className="diff-line__text">
                {marked ? <span className="visually-hidden">Line {row.newLine} holds hidden characters: </span> : null}
                <RevealedText text={row.text} characters={characters} />
              </span>
            </span>
          );
        })}
      </span>
    </pre>
  );
}

function DiffFileBody({
  section,
  hiddenCharacters,
  revealRow,
}: {
  section: DiffFileSection;
  hiddenCharacters: RowHiddenCharacters;
  revealRow: number | undefined;
}) {
  // A file of many thousand lines renders a step at a time, so opening it never freezes the page;
  // a line the warning points to is always among them.
  const [shownByStep, setShownByStep] = useState(fileLinesStep);
  const shown = Math.max(shownByStep, (revealRow ?? -1) + 1);
  if (section.binary) return <p className="diff-file__note muted">Binary file: its contents are not shown.</p>;
  if (section.rows.length === 0) {
    return (
      <p className="diff-file__note muted">
        {section.change === 'renamed' ? 'Renamed without changes to its content.' : section.change === 'added' ? 'An empty file.' : 'No changes to its content.'}
      </p>
    );
  }
  const notShown = section.rows.length - shown;
  return (
    <>
      <DiffLines rows={notShown > 0 ? section.rows.slice(0, shown) : section.rows} hiddenCharacters={hiddenCharacters} />
      {notShown > 0 ? (
        <p className="diff-file__more">
          <button type="button" className="button button--small" onClick={() => setShownByStep(shown + fileLinesStep)}>
            Show {Math.min(notShown, fileLinesStep).toLocaleString()} more lines
          </button>
          <span className="muted">{notShown.toLocaleString()} not shown yet</span>
        </p>
      ) : null}
      {section.cut && notShown <= 0 ? <p className="diff-file__note muted">The diff stops here: it is longer than the console shows.</p> : null}
    </>
  );
}

/** One changed file's diff, opened and closed by its header; closed, it costs nothing to render. */
export function DiffFile({
  section,
  id,
  open,
  onToggle,
  hiddenCharacters,
  flagged,
  revealRow,
}: {
  section: DiffFileSection;
  id: string;
  open: boolean;
  onToggle: (open: boolean) => void;
  hiddenCharacters: RowHiddenCharacters;
  flagged: boolean;
  revealRow: number | undefined;
}) {
  return (
    <details id={id} className={`diff-file${flagged ? ' diff-file--hidden-chars' : ''}`} open={open} onToggle={(event) => onToggle(event.currentTarget.open)}>
      <summary className="diff-file__header">
        <ChangeLabel change={section.change} />
        <code className="diff-file__path">
          {section.oldPath && section.change === 'renamed' ? (
            <>
              <RevealedPath path={section.oldPath} /> → <RevealedPath path={section.path} />
            </>
          ) : (
            <RevealedPath path={section.path} />
          )}
        </code>
        {flagged ? <HiddenCharactersFlag /> : null}
        {section.notes.map((note) => (
          <span key={note} className="muted">
            {note}
          </span>
        ))}
        {section.cut ? <span className="muted">cut off</span> : null}
        <DiffStat additions={section.additions} deletions={section.deletions} />
      </summary>
      {/* Closed files render nothing: a large diff costs only what is open. */}
      {open ? <DiffFileBody section={section} hiddenCharacters={hiddenCharacters} revealRow={revealRow} /> : null}
    </details>
  );
}
