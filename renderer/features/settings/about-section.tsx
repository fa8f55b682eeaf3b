import { useQuery } from '@tanstack/react-query';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { Loading, QueryError } from '../../ui/query-error';
import { ShortcutTable } from '../palette/shortcut-table';
import { LogFolder } from './log-folder';

const transportLabels = { electron: 'Desktop app (Electron)', browser: 'Browser host' } as const;

export function AboutSection() {
  const client = useOperatorClient();
  const info = useQuery({ queryKey: queryKeys.systemInfo, queryFn: () => client.getSystemInfo(), staleTime: Infinity });

  return (
    <section className="settings-section" aria-labelledby="settings-about-heading">
      <h2 id="settings-about-heading" className="section-title">
        About
      </h2>
      {info.isPending ? (
        <Loading what="system information" />
      ) : info.isError ? (
        <QueryError what="system information" error={info.error} onRetry={() => void info.refetch()} />
      ) : (
        <dl className="facts">
          <dt>Version</dt>
          <dd>{info.data.appVersion}</dd>
          <dt>Transport</dt>
          <dd>{transportLabels[info.data.transport]}</dd>
          <dt>Data directory</dt>
          <dd>
            <code>{info.data.dataDir}</code>
          </dd>
          <dt>Ledger</dt>
          <dd>
            <code>{info.data.ledgerPath}</code>
          </dd>
          <dt>Platform</dt>
          <dd>{info.data.platform}</dd>
        </dl>
      )}
      <LogFolder />
      <h3 className="section-title">
        Keyboard shortcuts
      </h3>
      <ShortcutTable />
    </section>
  );
}
