import { useId, useMemo, useState } from 'react';
import type { RunDetail, RunDiff } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { describeHiddenSegment, findHiddenCharacters, splitAtHiddenCharacters, type HiddenCharacter } from '../../../shared/hidden-characters';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { operatorMessage } from '../../ui/error-message';
import { pluralize } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
import {
  findDiffHiddenCharacters,
  hiddenCharactersHeadline,
  hiddenCharactersNamed,
  hiddenCharactersWarnings,
  hiddenCharactersWhere,
  type DiffHiddenCharacters,
  type FileHiddenCharacters,
} from './diff-hidden-characters';
import { shortDigest } from './run-detail-format';
import { RunPanel } from './run-panel';
import {
  fileChangeLabels,
  fileLinesStep,
  initiallyOpenFiles,
  parseUnifiedDiff,
  sectionFor,
  type DiffFileSection,
  type DiffRow,
  type FileChange,
} from './unified-diff';
import { useOpenRunFolder, useRunDiff } from './use-runs';

/** Lines added and removed: `+3 −1` to the eye, in words to a screen reader. */
function DiffStat({ additions, deletions }: { additions: number; deletions: number }) {
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

function ChangeLabel({ change }: { change: FileChange }) {
  return <span className={`diff-change diff-change--${change}`}>{fileChangeLabels[change]}</span>;
}

const rowMarks: Record<Exclude<DiffRow['kind'], 'hunk' | 'note'>, string> = { added: '+', removed: '-', context: ' ' };

/** One hidden character (or a run of tag characters) drawn as a badge naming it, in place of the character. */
function HiddenCharacterBadge({ characters }: { characters: readonly HiddenCharacter[] }) {
  const { badge, title, label } = describeHiddenSegment(characters);
  const first = characters[0]!;
  return (
    <span className={`hidden-char${first.warns ? '' : ' hidden-char--benign'}`} role="img" aria-label={label} title={title}>
      {badge}
    </span>
  );
}

/**
 * Text with its hidden characters shown: each is replaced by its badge, so nothing in it is invisible
 * and no bidirectional control can reorder how the rest of the line reads.
 */
function RevealedText({ text, characters }: { text: string; characters: readonly HiddenCharacter[] | undefined }) {
  if (!characters || characters.length === 0) return <>{text}</>;
  return (
    <>
      {splitAtHiddenCharacters(text, characters).map((segment, index) =>
        segment.kind === 'text' ? <span key={index}>{segment.text}</span> : <HiddenCharacterBadge key={index} characters={segment.characters} />,
      )}
    </>
  );
}

/** A changed file's name, with any hidden characters in it shown. */
function RevealedPath({ path }: { path: string }) {
  return <RevealedText text={path} characters={findHiddenCharacters(path, { line: false })} />;
}

/** Said in words next to a file that holds hidden characters, in the file list and its diff header. */
function HiddenCharactersFlag() {
  return <span className="hidden-chars-flag">Hidden characters</span>;
}

interface RowHiddenCharacters {
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

function DiffFile({
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

/**
 * The warning over a diff whose added lines or file names hold hidden characters: how many, where,
 * which, and why it matters, with each file a button that takes the operator to its first such line.
 */
function HiddenCharactersWarning({
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

function DiffView({ diff, running }: { diff: RunDiff; running: boolean }) {
  const baseId = useId();
  const sections = useMemo(() => parseUnifiedDiff(diff.unifiedDiff, { truncated: diff.truncated }), [diff.unifiedDiff, diff.truncated]);
  const hiddenCharacters = useMemo(() => findDiffHiddenCharacters(sections, diff.files), [sections, diff.files]);
  const defaults = useMemo(() => initiallyOpenFiles(sections), [sections]);
  // The operator's own choices, by path, outlive the refetches of a running run.
  const [toggled, setToggled] = useState<Record<string, boolean>>({});
  // Rows the warning took the operator to, by path: they stay rendered however long the file is.
  const [revealed, setRevealed] = useState<Record<string, number>>({});
  const isOpen = (index: number) => toggled[sections[index]!.path] ?? defaults[index]!;
  const sectionId = (index: number) => `${baseId}-file-${index}`;
  const rowId = (index: number, row: number) => `${sectionId(index)}-row-${row}`;
  const additions = sections.reduce((sum, section) => sum + section.additions, 0);
  const deletions = sections.reduce((sum, section) => sum + section.deletions, 0);
  const cutIn = sections.find((section) => section.cut);
  const flaggedPaths = new Set(hiddenCharacters.files.map((file) => file.path));

  /** Opens a file's diff and moves focus to it: to one of its rows when given, else to its header. */
  const jumpTo = (path: string, row?: number) => {
    const index = sections.findIndex((section) => section.path === path);
    if (index === -1) return;
    setToggled((current) => ({ ...current, [path]: true }));
    if (row !== undefined) setRevealed((current) => ({ ...current, [path]: row }));
    requestAnimationFrame(() => {
      const target = row === undefined ? null : document.getElementById(rowId(index, row));
      const focusable = target ?? document.getElementById(sectionId(index))?.querySelector('summary');
      focusable?.scrollIntoView({ block: target ? 'center' : 'start' });
      focusable?.focus();
    });
  };

  const base = diff.baseRevision ? (
    <>
      base revision <code title={diff.baseRevision}>{shortDigest(diff.baseRevision)}</code>
    </>
  ) : (
    'the folder as the run found it'
  );

  // Repositories the agent made inside the view are never entered (their config could name a
  // program): said here, so their absence from the diff is not a surprise.
  const nested =
    diff.nestedRepositories.length > 0 ? (
      <p className="callout callout--warning" role="note">
        The agent made {diff.nestedRepositories.length === 1 ? 'a repository' : 'repositories'} of its own in{' '}
        {diff.nestedRepositories.map((folder, index) => (
          <span key={folder}>
            {index > 0 ? ', ' : ''}
            <code>
              <RevealedPath path={`${folder}/`} />
            </code>
          </span>
        ))}
        . The console does not look inside {diff.nestedRepositories.length === 1 ? 'it' : 'them'}, so {diff.nestedRepositories.length === 1 ? 'its' : 'their'} files are not in this diff. Open the folder to review {diff.nestedRepositories.length === 1 ? 'it' : 'them'}.
      </p>
    ) : null;

  if (diff.files.length === 0) {
    return (
      <>
        <p className="run-changes__summary muted">
          {running ? 'No changes yet' : 'No files changed'} against {base}
        </p>
        {nested}
      </>
    );
  }

  return (
    <>
      {nested}
      {hiddenCharacters.files.length > 0 ? (
        <HiddenCharactersWarning report={hiddenCharacters} truncated={diff.truncated} onJump={(file) => jumpTo(file.path, file.lines[0]?.row)} />
      ) : null}
      <p className="run-changes__summary">
        {pluralize(diff.files.length, 'file')} changed against {base} <DiffStat additions={additions} deletions={deletions} />
      </p>
      <ul className="diff-files" aria-label="Files changed">
        {diff.files.map((file) => {
          const section = sectionFor(sections, file.path);
          return (
            <li key={`${file.status}:${file.path}`} className={`diff-files__item${flaggedPaths.has(file.path) ? ' diff-files__item--hidden-chars' : ''}`}>
              <ChangeLabel change={file.status} />
              {section ? (
                <button type="button" className="diff-files__path" onClick={() => jumpTo(file.path)}>
                  <RevealedPath path={file.path} />
                </button>
              ) : (
                <code className="diff-files__path diff-files__path--plain">
                  <RevealedPath path={file.path} />
                </code>
              )}
              {file.oldPath ? (
                <span className="muted">
                  from{' '}
                  <code>
                    <RevealedPath path={file.oldPath} />
                  </code>
                </span>
              ) : null}
              {flaggedPaths.has(file.path) ? <HiddenCharactersFlag /> : null}
              {section?.cut ? <span className="muted">cut off</span> : null}
              {section ? (
                <DiffStat additions={section.additions} deletions={section.deletions} />
              ) : diff.truncated ? (
                <span className="muted">not in the shown diff</span>
              ) : null}
            </li>
          );
        })}
      </ul>
      {diff.truncated ? (
        <p className="callout callout--warning">
          This diff is too large to show in full
          {cutIn ? (
            <>
              : it stops part-way through <code>{cutIn.path}</code>
            </>
          ) : null}
          . Open the folder to see every change.
        </p>
      ) : null}
      <div className="diff-view">
        {sections.map((section, index) => (
          <DiffFile
            key={`${index}:${section.path}`}
            id={sectionId(index)}
            section={section}
            open={isOpen(index)}
            onToggle={(open) => {
              if (open !== isOpen(index)) setToggled((current) => ({ ...current, [section.path]: open }));
            }}
            hiddenCharacters={{ shown: hiddenCharacters.rows[index]!, marked: hiddenCharacters.markedRows[index]!, rowId: (row) => rowId(index, row) }}
            flagged={flaggedPaths.has(section.path)}
            revealRow={revealed[section.path]}
          />
        ))}
      </div>
    </>
  );
}

/** Open folder, and its answer: the path to copy, and whether a file manager could be opened at all. */
function useRunFolder(runId: string) {
  const openFolder = useOpenRunFolder();
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const result = openFolder.data;

  const copy = async (path: string) => {
    try {
      await navigator.clipboard.writeText(path);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };

  return {
    button: (
      <button
        type="button"
        className="button button--small"
        aria-disabled={openFolder.isPending || undefined}
        onClick={() => {
          if (openFolder.isPending) return;
          setCopied(null);
          openFolder.mutate(runId);
        }}
      >
        Open folder
      </button>
    ),
    result: (
      <>
        <div className="live-region" role="status">
          {result
            ? result.opened
              ? 'Asked this machine’s file manager to open the run’s folder. If nothing opened, copy the path.'
              : 'The console could not open a file manager on this machine. Copy the path and open it yourself.'
            : ''}
        </div>
        {result ? (
          <div className="run-folder">
            <code className="run-folder__path">{result.path}</code>
            <button type="button" className="button button--small" onClick={() => void copy(result.path)}>
              Copy path
            </button>
            <span className="muted" role="status">
              {copied === 'copied' ? 'Copied.' : copied === 'failed' ? 'Could not use the clipboard here: select the path and copy it.' : ''}
            </span>
          </div>
        ) : null}
        {openFolder.isError ? <ErrorAlert error={openFolder.error} prefix="Could not open the folder." /> : null}
      </>
    ),
  };
}

/**
 * What the agent changed in its working folder, against the revision the run started from. Read again
 * when the run changes, every few seconds while it runs, and on Refresh changes.
 */
export function RunChanges({ run }: { run: RunDetail }) {
  const running = run.status === 'running';
  const diff = useRunDiff(run.id, running);
  const folder = useRunFolder(run.id);
  const [refreshing, setRefreshing] = useState(false);
  const noFolder = diff.isError && isOperatorError(diff.error) && diff.error.code === 'not_found';
  // A folder may still appear for a run on its way; an ended run without one will never have it.
  const waitingForFolder = noFolder && isActiveRunStatus(run.status) && !run.archived;

  let body;
  if (noFolder) {
    body = <EmptyState title={waitingForFolder ? 'Changes appear here once the run’s working folder is ready.' : operatorMessage(diff.error)} />;
  } else if (diff.isPending) {
    body = <Loading what="the changes" />;
  } else if (diff.isError && !diff.data) {
    body = <QueryError what="the changes" error={diff.error} onRetry={() => void diff.refetch()} />;
  } else {
    body = (
      <>
        {diff.isRefetchError ? <ErrorAlert error={diff.error} prefix="Could not read the latest changes." /> : null}
        <DiffView diff={diff.data!} running={running} />
      </>
    );
  }

  return (
    <RunPanel
      title="Changes"
      className="run-changes"
      labelledRegion
      headerExtra={
        <div className="run-changes__toolbar">
          <span className="muted" aria-live="polite">
            {refreshing ? 'Reading the changes…' : ''}
          </span>
          {noFolder && !waitingForFolder ? null : (
            <button
              type="button"
              className="button button--small"
              aria-disabled={refreshing || undefined}
              onClick={() => {
                if (refreshing) return;
                setRefreshing(true);
                void diff.refetch().finally(() => setRefreshing(false));
              }}
            >
              Refresh changes
            </button>
          )}
          {noFolder ? null : folder.button}
        </div>
      }
    >
      {noFolder ? null : folder.result}
      {body}
    </RunPanel>
  );
}
