import type { RunDetail } from '../../../shared/entities';
import { safeActionHref } from '../../ui/error-message';
import { providerDisplayName, useCatalog } from '../agents/use-catalog';
import { NoticeCard } from '../notices/notice-card';
import { RunDetailsPanel } from './run-panels';

/**
 * A refused run never started: its page leads with the fix (the notice's action, or the failure's
 * link), says the message once, and shows no terminal, confinement or changes, which it never had.
 */
export function RefusedRun({ run }: { run: RunDetail }) {
  const catalog = useCatalog();
  const nothingStarted = (
    <p className="run-refused__nothing">
      <strong>Nothing was started:</strong> no working folder, no process, and no AI connection key was opened.
    </p>
  );
  return (
    <div className="run-refused">
      {run.notice ? (
        <NoticeCard notice={run.notice} className="run-notice run-notice--lead" />
      ) : run.failure ? (
        <div className="run-failure run-failure--refused">
          <p className="run-failure__title">Refused before anything started</p>
          <p className="run-failure__message">{run.failure.message}</p>
          {safeActionHref(run.failure.actionUrl) ? (
            <p>
              <a className="button button--primary" href={safeActionHref(run.failure.actionUrl)}>
                Open the setting that fixes this
              </a>
            </p>
          ) : null}
        </div>
      ) : null}
      {nothingStarted}
      <div className="run-refused__details">
        <RunDetailsPanel run={run} providerName={providerDisplayName(catalog.data, run.providerId)} />
      </div>
    </div>
  );
}
