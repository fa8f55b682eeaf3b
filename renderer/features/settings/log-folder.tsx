import { useMutation, useQuery } from '@tanstack/react-query';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { FolderPath, OpenFolderButton } from '../../ui/folder-path';
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
          <FolderPath path={info.data.logDir} opening={open} folderName="the log folder" errorPrefix="Could not open the log folder.">
            <OpenFolderButton pending={open.isPending} onOpen={() => open.mutate()}>
              Open log folder
            </OpenFolderButton>
          </FolderPath>
        </>
      ) : (
        <p className="field__hint">
          This console keeps no log file this time: it could not be made (the terminal that started the console says why). Only
          warnings and errors reach that terminal.
        </p>
      )}
    </div>
  );
}
