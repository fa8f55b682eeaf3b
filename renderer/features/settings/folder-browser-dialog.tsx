import { useEffect, useId, useRef, useState } from 'react';
import { ModalDialog } from '../../ui/modal-dialog';
import { operatorMessage } from '../../ui/error-message';
import { useDirectoryListing } from '../projects/use-projects';

function FolderIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true" focusable="false">
      <path d="M1.75 4.25a1 1 0 0 1 1-1h3.5l1.5 1.5h5.5a1 1 0 0 1 1 1v6.5a1 1 0 0 1-1 1H2.75a1 1 0 0 1-1-1z" strokeLinejoin="round" />
    </svg>
  );
}

/**
 * Browses folders on the core's machine (which is not necessarily where this renderer runs: in the
 * browser host the core reads its own disk), so the operator can pick a project without typing a path.
 */
export function FolderBrowserDialog({
  startPath,
  onChoose,
  onClose,
}: {
  startPath: string | undefined;
  onChoose: (path: string) => void;
  onClose: () => void;
}) {
  const [path, setPath] = useState<string | undefined>(startPath);
  const listing = useDirectoryListing(path);
  const current = listing.data;
  const currentPathRef = useRef<HTMLParagraphElement>(null);
  const userNavigated = useRef(false);
  const gitDescriptionId = useId();

  const busy = listing.isFetching;

  // A folder button that was pressed is gone once the next folder shows; focus would fall out of the
  // dialog. Put it on the path of the folder the operator is now in.
  useEffect(() => {
    if (!userNavigated.current || listing.isPlaceholderData) return;
    userNavigated.current = false;
    const pathElement = currentPathRef.current;
    const active = document.activeElement;
    if (pathElement && (!active || active === document.body || !pathElement.closest('dialog')?.contains(active))) {
      pathElement.focus();
    }
  }, [current?.path, listing.isPlaceholderData]);

  const open = (next: string | undefined) => {
    if (busy && next !== undefined) return;
    userNavigated.current = true;
    setPath(next);
  };

  return (
    <ModalDialog
      title="Choose a project folder"
      onClose={onClose}
      className="folder-browser"
      initialFocusRef={currentPathRef}
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button button--primary"
            disabled={!current || listing.isPlaceholderData}
            onClick={() => current && onChoose(current.path)}
          >
            Choose this folder
          </button>
        </>
      }
    >
      <div className="folder-browser__toolbar">
        <button
          type="button"
          className="button"
          disabled={!current?.parent}
          onClick={() => current?.parent && open(current.parent)}
        >
          <span aria-hidden="true">↑ </span>Up
        </button>
        <p className="folder-browser__path" ref={currentPathRef} tabIndex={-1} aria-live="polite">
          <span className="visually-hidden">Current folder: </span>
          <code>{current?.path ?? path ?? 'Home folder'}</code>
        </p>
      </div>

      <span id={gitDescriptionId} hidden>
        Git repository
      </span>

      {listing.isError ? (
        <div className="query-error" role="alert">
          <p className="query-error__message">{operatorMessage(listing.error)}</p>
          <div className="query-error__actions">
            {path !== undefined ? (
              <button type="button" className="button" onClick={() => open(undefined)}>
                Open home folder
              </button>
            ) : null}
            <button type="button" className="button" onClick={() => void listing.refetch()}>
              Try again
            </button>
          </div>
        </div>
      ) : null}

      {current ? (
        <div className="folder-browser__listing" aria-busy={busy}>
          {current.entries.length === 0 ? (
            <p className="folder-browser__empty">No folders inside this one. Choose it, or go up.</p>
          ) : (
            <ul className="folder-browser__entries" aria-label={`Folders in ${current.path}`}>
              {current.entries.map((entry) => (
                <li key={entry.path}>
                  <button
                    type="button"
                    className="folder-entry"
                    onClick={() => open(entry.path)}
                    aria-describedby={entry.isGitRepo ? gitDescriptionId : undefined}
                  >
                    <FolderIcon />
                    <span className="folder-entry__name">{entry.name}</span>
                    {entry.isGitRepo ? (
                      <span className="tag tag--git" aria-hidden="true">
                        git
                      </span>
                    ) : null}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {current.truncated ? (
            <p className="folder-browser__note">Not every folder is shown here. Type the path in Project folder to reach one that is missing.</p>
          ) : null}
        </div>
      ) : listing.isPending ? (
        <p className="loading">Loading folders…</p>
      ) : null}
    </ModalDialog>
  );
}
