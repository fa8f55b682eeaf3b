import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { ErrorAlert } from '../../ui/error-alert';
import { Loading, QueryError } from '../../ui/query-error';

/** Where the console's log is, the same answer the error pages use. */
export function useLogInfo() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.logInfo, queryFn: () => client.getLogInfo(), staleTime: Infinity });
}

/**
 * Settings → About: the log's folder, with Open log folder (the file manager of the machine the
 * console runs on) and the path to copy when no file manager could be opened.
 */
export function LogFolder() {
  const client = useOperatorClient();
  const info = useLogInfo();
  const open = useMutation({ mutationFn: () => client.openLogFolder() });
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);

  const copy = async (path: string) => {
    try {
      await navigator.clipboard.writeText(path);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };

  return (
    <div className="form-card" role="group" aria-labelledby="settings-log-heading">
      <h3 id="settings-log-heading" className="form-card__title">
        Log
      </h3>
      {info.isPending ? (
        <Loading what="where the log is" />
      ) : info.isError ? (
        <QueryError what="where the log is" error={info.error} onRetry={() => void info.refetch()} />
      ) : info.data.logDir && info.data.logFile ? (
        <>
          <p className="field__hint">
            What the console did and every error it hit, one line each, in <code>{info.data.logFile}</code>. Older lines move to
            numbered files beside it. Secrets the console holds are cut out of every line.
          </p>
          <div className="run-folder">
            <code className="run-folder__path">{info.data.logDir}</code>
            <button
              type="button"
              className="button button--small"
              aria-disabled={open.isPending || undefined}
              onClick={() => {
                if (open.isPending) return;
                setCopied(null);
                open.mutate();
              }}
            >
              Open log folder
            </button>
            <button type="button" className="button button--small" onClick={() => void copy(info.data.logDir!)}>
              Copy path
            </button>
          </div>
          <p className="muted" role="status">
            {open.data
              ? open.data.opened
                ? 'Asked this machine’s file manager to open the log folder. If nothing opened, copy the path.'
                : 'The console could not open a file manager on this machine. Copy the path and open it yourself.'
              : ''}
            {copied === 'copied' ? ' Copied.' : copied === 'failed' ? ' Could not use the clipboard here: select the path and copy it.' : ''}
          </p>
          {open.isError ? <ErrorAlert error={open.error} prefix="Could not open the log folder." /> : null}
        </>
      ) : (
        <p className="field__hint">This console writes no log file: its log goes to the standard error of the process that started it.</p>
      )}
    </div>
  );
}
