import { useId, useMemo, useState } from 'react';
import type { RunDiff } from '../../../shared/entities';
import { pluralize } from '../../ui/format';
import { findDiffHiddenCharacters } from './diff-hidden-characters';
import { DiffFile } from './diff-file';
import { ChangeLabel, DiffStat, HiddenCharactersFlag } from './diff-file-labels';
import { HiddenCharactersWarning } from './hidden-characters-warning';
import { RevealedPath } from './revealed-text';
import { shortDigest } from './run-detail-format';
import { initiallyOpenFiles, parseUnifiedDiff, sectionFor } from './unified-diff';

/**
 * A run's diff as the operator reads it: the summary against the base, the list of changed files,
 * warnings (hidden characters, repositories not entered, a diff cut short), then each file's diff.
 */
export function DiffView({ diff, running }: { diff: RunDiff; running: boolean }) {
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
  // The core counts each file's lines (git's numstat), so a file the shown diff cut off counts too.
  const additions = diff.files.reduce((sum, file) => sum + (file.additions ?? 0), 0);
  const deletions = diff.files.reduce((sum, file) => sum + (file.deletions ?? 0), 0);
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
              {!section && diff.truncated ? <span className="muted">not in the shown diff</span> : null}
              {file.additions === null || file.deletions === null ? (
                <span className="muted">binary</span>
              ) : (
                <DiffStat additions={file.additions} deletions={file.deletions} />
              )}
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
