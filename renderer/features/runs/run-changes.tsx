import { useId, useMemo, useState } from 'react';
import type { RunDetail, RunDiff } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { operatorMessage } from '../../ui/error-message';
import { pluralize } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
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

function DiffLines({ rows }: { rows: readonly DiffRow[] }) {
  return (
    <pre className="diff-lines">
      <span className="diff-lines__inner">
        {rows.map((row, index) => {
          if (row.kind === 'hunk') {
            return (
              <span key={index} className="diff-line diff-line--hunk">
                <span className="diff-line__number" aria-hidden="true" />
                <span className="diff-line__number" aria-hidden="true" />
                <span className="diff-line__text">{row.text}</span>
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
          return (
            <span key={index} className={`diff-line diff-line--${row.kind}`}>
              <span className="diff-line__number" aria-hidden="true">
                {row.oldLine ?? ''}
              </span>
              <span className="diff-line__number" aria-hidden="true">
                {row.newLine ?? ''}
              </span>
              <span className="diff-line__mark">{rowMarks[row.kind]}</span>
              <span className="diff-line__text">{row.text}</span>
            </span>
          );
        })}
      </span>
    </pre>
  );
}

function DiffFileBody({ section }: { section: DiffFileSection }) {
  // A file of many thousand lines renders a step at a time, so opening it never freezes the page.
  const [shown, setShown] = useState(fileLinesStep);
  if (section.binary) return <p className="diff-file__note muted">Binary file: its contents are not shown.</p>;
  if (section.rows.length === 0) {
    return (
      <p className="diff-file__note muted">
        {section.change === 'renamed' ? 'Renamed without changes to its content.' : section.change === 'added' ? 'An empty file.' : 'No changes to its content.'}
      </p>
    );
  }
  const hidden = section.rows.length - shown;
  return (
    <>
      <DiffLines rows={hidden > 0 ? section.rows.slice(0, shown) : section.rows} />
      {hidden > 0 ? (
        <p className="diff-file__more">
          <button type="button" className="button button--small" onClick={() => setShown((count) => count + fileLinesStep)}>
            Show {Math.min(hidden, fileLinesStep).toLocaleString()} more lines
          </button>
          <span className="muted">{hidden.toLocaleString()} not shown yet</span>
        </p>
      ) : null}
      {section.cut && hidden <= 0 ? <p className="diff-file__note muted">The diff stops here: it is longer than the console shows.</p> : null}
    </>
  );
}

function DiffFile({ section, id, open, onToggle }: { section: DiffFileSection; id: string; open: boolean; onToggle: (open: boolean) => void }) {
  return (
    <details id={id} className="diff-file" open={open} onToggle={(event) => onToggle(event.currentTarget.open)}>
      <summary className="diff-file__header">
        <ChangeLabel change={section.change} />
        <code className="diff-file__path">
          {section.oldPath && section.change === 'renamed' ? `${section.oldPath} → ${section.path}` : section.path}
        </code>
        {section.notes.map((note) => (
          <span key={note} className="muted">
            {note}
          </span>
        ))}
        {section.cut ? <span className="muted">cut off</span> : null}
        <DiffStat additions={section.additions} deletions={section.deletions} />
      </summary>
      {/* Closed files render nothing: a large diff costs only what is open. */}
      {open ? <DiffFileBody section={section} /> : null}
    </details>
  );
}

function DiffView({ diff, running }: { diff: RunDiff; running: boolean }) {
  const baseId = useId();
  const sections = useMemo(() => parseUnifiedDiff(diff.unifiedDiff, { truncated: diff.truncated }), [diff.unifiedDiff, diff.truncated]);
  const defaults = useMemo(() => initiallyOpenFiles(sections), [sections]);
  // The operator's own choices, by path, outlive the refetches of a running run.
  const [toggled, setToggled] = useState<Record<string, boolean>>({});
  const isOpen = (index: number) => toggled[sections[index]!.path] ?? defaults[index]!;
  const sectionId = (index: number) => `${baseId}-file-${index}`;
  const additions = sections.reduce((sum, section) => sum + section.additions, 0);
  const deletions = sections.reduce((sum, section) => sum + section.deletions, 0);
  const cutIn = sections.find((section) => section.cut);

  const jumpTo = (path: string) => {
    const index = sections.findIndex((section) => section.path === path);
    if (index === -1) return;
    setToggled((current) => ({ ...current, [path]: true }));
    requestAnimationFrame(() => {
      const summary = document.getElementById(sectionId(index))?.querySelector('summary');
      summary?.scrollIntoView({ block: 'start' });
      summary?.focus();
    });
  };

  const base = diff.baseRevision ? (
    <>
      base revision <code title={diff.baseRevision}>{shortDigest(diff.baseRevision)}</code>
    </>
  ) : (
    'the folder as the run found it'
  );

  if (diff.files.length === 0) {
    return (
      <p className="run-changes__summary muted">
        {running ? 'No changes yet' : 'No files changed'} against {base}
      </p>
    );
  }

  return (
    <>
      <p className="run-changes__summary">
        {pluralize(diff.files.length, 'file')} changed against {base} <DiffStat additions={additions} deletions={deletions} />
      </p>
      <ul className="diff-files" aria-label="Files changed">
        {diff.files.map((file) => {
          const section = sectionFor(sections, file.path);
          return (
            <li key={`${file.status}:${file.path}`} className="diff-files__item">
              <ChangeLabel change={file.status} />
              {section ? (
                <button type="button" className="diff-files__path" onClick={() => jumpTo(file.path)}>
                  {file.path}
                </button>
              ) : (
                <code className="diff-files__path diff-files__path--plain">{file.path}</code>
              )}
              {file.oldPath ? (
                <span className="muted">
                  from <code>{file.oldPath}</code>
                </span>
              ) : null}
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
