import { useState, type ReactNode } from 'react';
import { ErrorAlert } from './error-alert';

/**
 * What an Open … folder request has answered so far: the state of the TanStack mutation that sent
 * it. The core opens the folder in the file manager of the machine it runs on, if it can find one.
 */
export interface FolderOpening {
  /** The folder and whether a file manager was asked to open it; undefined until an answer came. */
  data: { path: string; opened: boolean } | undefined;
  isError: boolean;
  error: unknown;
  /** When the latest request was sent (0 before any): a copy's answer belongs to one request. */
  submittedAt: number;
}

type CopyAnswer = 'copied' | 'failed';

const copyAnswers: Record<CopyAnswer, string> = {
  copied: ' Copied.',
  failed: ' Could not use the clipboard here: select the path and copy it.',
};

/** An Open … folder button: asks once at a time, and says it is busy without losing focus (aria-disabled). */
export function OpenFolderButton({ pending, onOpen, children }: { pending: boolean; onOpen: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      className="button button--small"
      aria-disabled={pending || undefined}
      onClick={() => {
        if (!pending) onOpen();
      }}
    >
      {children}
    </button>
  );
}

/**
 * A folder of the console's (the log's, a run's) with the path to copy, and what Open … folder did:
 * a file manager may be missing on the machine the console runs on (a server, a browser elsewhere),
 * and then the path is the way there. Used by Settings → About and a run's Changes.
 */
export function FolderPath({
  path,
  opening,
  folderName,
  errorPrefix,
  children,
}: {
  /** The folder to show and copy; undefined while it is not known yet (a run's, until Open folder answers). */
  path: string | undefined;
  opening: FolderOpening;
  /** How the answer names the folder: "the log folder", "the run’s folder". */
  folderName: string;
  /** Said before the core's message when the folder could not be opened. */
  errorPrefix: string;
  /** Controls between the path and Copy path (Open log folder). */
  children?: ReactNode;
}) {
  const [copied, setCopied] = useState<{ answer: CopyAnswer; submittedAt: number } | null>(null);
  // A new Open … request starts a new answer: the earlier copy's is no longer news.
  const copyAnswer = copied && copied.submittedAt === opening.submittedAt ? copied.answer : null;
  const result = opening.data;

  const copy = async (text: string) => {
    const { submittedAt } = opening;
    try {
      await navigator.clipboard.writeText(text);
      setCopied({ answer: 'copied', submittedAt });
    } catch {
      setCopied({ answer: 'failed', submittedAt });
    }
  };

  return (
    <>
      {path !== undefined ? (
        <div className="run-folder">
          <code className="run-folder__path">{path}</code>
          {children}
          <button type="button" className="button button--small" onClick={() => void copy(path)}>
            Copy path
          </button>
        </div>
      ) : null}
      {/* Always in the page, so a screen reader hears the answer when it arrives. */}
      <p className="muted live-region" role="status">
        {result
          ? result.opened
            ? `Asked this machine’s file manager to open ${folderName}. If nothing opened, copy the path.`
            : 'The console could not open a file manager on this machine. Copy the path and open it yourself.'
          : ''}
        {copyAnswer ? copyAnswers[copyAnswer] : ''}
      </p>
      {opening.isError ? <ErrorAlert error={opening.error} prefix={errorPrefix} /> : null}
    </>
  );
}
