import { useMutation } from '@tanstack/react-query';
import { useOperatorClient } from '../../app/operator-context';
import { FolderPath, OpenFolderButton } from '../../ui/folder-path';

/** Notices about the data directory's disk (Disk full) also open that folder: its ledger, task roots and logs. */
export function isAboutDataFolder(kind: string): boolean {
  return kind === 'disk_full';
}

/**
 * Open the data folder, beside a Disk full notice's Open Clean up: what takes the space may be
 * outside the runs Clean up knows (the ledger, logs, other files on that disk). The path is shown
 * to copy when no file manager could be opened on the machine the console runs on.
 */
export function DataFolderAction({ labelledBy }: { labelledBy: string }) {
  const client = useOperatorClient();
  const open = useMutation({ mutationFn: () => client.openDataFolder() });
  return (
    <div className="notice__folder" role="group" aria-labelledby={labelledBy}>
      <OpenFolderButton pending={open.isPending} onOpen={() => open.mutate()}>
        Open the data folder
      </OpenFolderButton>
      {/* The folder is known once Open answers: the core says where it is as it opens it. */}
      <FolderPath path={open.data?.path} opening={open} folderName="the data folder" errorPrefix="Could not open the data folder." />
    </div>
  );
}
