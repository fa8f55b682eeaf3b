import { useId, useState } from 'react';
import { autoTheme, RechartsThemeProvider, type RechartsTheme } from 'recharts';
import { Link, useLocation, useSearch } from 'wouter';
import { actionPath } from '../../../shared/routes';
import type { UsageReport } from '../../../shared/usage';
import { usageCsv, usageCsvFileName } from '../../../shared/usage-csv';
import { EmptyState } from '../../ui/empty-state';
import { FilterSelect } from '../../ui/filter-select';
import { pluralize } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { useProjects } from '../projects/use-projects';
import { CostEstimateText } from './cost-estimate';
import { downloadTextFile } from './download-file';
import { TopTasks } from './top-tasks';
import { UsageDailyChart } from './usage-daily-chart';
import { formatTokens, tokenCount, tokensInAll } from './usage-format';
import { UsageTable } from './usage-table';
import { presetOf, presetRange, rangeProblem, usagePresets, usageQuery, usageViewFromSearch, usageViewPath, type UsageView } from './usage-view';
import { useUsageReport } from './use-usage';
import './usage.css';

/** recharts' theme that follows the page's colour scheme, over the console's own surface colour. */
const chartTheme: RechartsTheme = { ...autoTheme, pageBackground: 'var(--surface)' };

/**
 * Usage: the tokens agents used in a range of days and what they are estimated to cost, by day
 * (stacked by agent or connection), the tasks that cost most, and every attempt in a table that
 * exports as CSV. What the page shows is in its address, so a reload or a link keeps it.
 */
export function UsagePage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const today = new Date();
  const view = usageViewFromSearch(search, today);
  const report = useUsageReport(usageQuery(view));
  const change = (next: Partial<UsageView>) => navigate(usageViewPath({ ...view, ...next }), { replace: true });

  return (
    <Page
      title="Usage"
      subtitle={
        <>
          Tokens your agents used, and what they are estimated to cost at the prices in{' '}
          <Link href={actionPath({ kind: 'settings-prices' })}>Settings → Prices</Link>. Estimates, not a bill.
        </>
      }
      className="usage-page"
    >
      <UsageControls view={view} today={today} onChange={change} />
      {report.isPending ? (
        <Loading what="usage" />
      ) : report.isError && !report.data ? (
        <QueryError what="usage" error={report.error} onRetry={() => void report.refetch()} />
      ) : (
        <>
          {report.isError ? <QueryError what="the latest usage" error={report.error} onRetry={() => void report.refetch()} /> : null}
          {/* While another range loads, the last one stays, dimmed and marked busy. */}
          <div className={report.isPlaceholderData ? 'usage-report usage-report--stale' : 'usage-report'} aria-busy={report.isPlaceholderData || undefined}>
            <RechartsThemeProvider value={chartTheme}>
              <UsageReportView report={report.data} view={view} onMeasure={(measure) => change({ measure })} />
            </RechartsThemeProvider>
          </div>
        </>
      )}
    </Page>
  );
}

function UsageControls({ view, today, onChange }: { view: UsageView; today: Date; onChange: (next: Partial<UsageView>) => void }) {
  const ids = { from: useId(), to: useId(), group: useId(), problem: useId() };
  const projects = useProjects();
  // What the operator typed, while it is not a range that can be shown; the address holds the rest.
  const [draft, setDraft] = useState<{ from: string; to: string } | null>(null);
  const range = draft ?? { from: view.from, to: view.to };
  const problem = draft ? rangeProblem(draft) : null;
  const preset = draft ? null : presetOf(view, today);

  const typeDay = (field: 'from' | 'to', value: string) => {
    const next = { ...range, [field]: value };
    if (rangeProblem(next)) {
      setDraft(next);
    } else {
      setDraft(null);
      onChange(next);
    }
  };

  return (
    <div className="filter-bar usage-controls" role="group" aria-label="Usage shown">
      <div className="filter-bar__field">
        <label htmlFor={ids.from}>From</label>
        <input
          id={ids.from}
          type="date"
          className="input"
          value={range.from}
          max={range.to || undefined}
          onChange={(event) => typeDay('from', event.target.value)}
          aria-invalid={problem?.field === 'from' || undefined}
          aria-describedby={problem?.field === 'from' ? ids.problem : undefined}
        />
      </div>
      <div className="filter-bar__field">
        <label htmlFor={ids.to}>To</label>
        <input
          id={ids.to}
          type="date"
          className="input"
          value={range.to}
          min={range.from || undefined}
          onChange={(event) => typeDay('to', event.target.value)}
          aria-invalid={problem?.field === 'to' || undefined}
          aria-describedby={problem?.field === 'to' ? ids.problem : undefined}
        />
      </div>
      <div className="usage-controls__presets" role="group" aria-label="Date range presets">
        {usagePresets.map((candidate) => (
          <button
            key={candidate.id}
            type="button"
            className="button button--small"
            aria-pressed={preset === candidate.id}
            onClick={() => {
              setDraft(null);
              onChange(presetRange(candidate.id, today));
            }}
          >
            {candidate.label}
          </button>
        ))}
      </div>
      <div className="filter-bar__field">
        <label htmlFor={ids.group}>Group by</label>
        <select id={ids.group} className="select" value={view.groupBy} onChange={(event) => onChange({ groupBy: event.target.value === 'connection' ? 'connection' : 'agent' })}>
          <option value="agent">Agent</option>
          <option value="connection">Connection</option>
        </select>
      </div>
      <FilterSelect
        label="Project"
        anyLabel="All projects"
        value={view.projectId ?? ''}
        options={(projects.data ?? []).map((project) => ({ value: project.id, label: project.name }))}
        onChange={(projectId) => onChange({ projectId: projectId || null })}
      />
      {problem ? (
        <p id={ids.problem} className="field__problem usage-controls__problem" role="alert">
          {problem.message}
        </p>
      ) : null}
    </div>
  );
}

function UsageReportView({ report, view, onMeasure }: { report: UsageReport; view: UsageView; onMeasure: (measure: UsageView['measure']) => void }) {
  const tableHeadingId = useId();
  const measureId = useId();
  const ownLogin = report.rows.some((row) => row.billing === 'operator_login');
  if (report.rows.length === 0) {
    return (
      <EmptyState title="No usage in these days">
        <p>
          Runs whose CLI reports its tokens (Codex, Claude Code, Pi, Gemini CLI, or a program printing Codex-style JSON) show up here once
          they have run. Try a longer range.
        </p>
      </EmptyState>
    );
  }
  return (
    <>
      <UsageTotals report={report} />
      {report.total.cost.unpricedModels.length > 0 ? (
        <div className="callout callout--warning">
          <p>
            The table has no price for {report.total.cost.unpricedModels.join(', ')}: their {tokenCount(report.total.cost.unpricedTokens)} are not in the estimates.{' '}
            <Link href={actionPath({ kind: 'settings-prices' })}>Add their prices in Settings → Prices</Link>.
          </p>
        </div>
      ) : null}
      {ownLogin ? (
        <p className="muted usage-note">
          Runs on your own login (no connection) are estimated at API prices; if that login is a subscription plan, they were not billed per token.
        </p>
      ) : null}
      <section className="usage-section" aria-label="Usage by day">
        <div className="usage-section__toolbar">
          <div className="filter-bar__field usage-measure">
            <label htmlFor={measureId}>Chart</label>
            <select id={measureId} className="select" value={view.measure} onChange={(event) => onMeasure(event.target.value === 'cost' ? 'cost' : 'tokens')}>
              <option value="tokens">Tokens</option>
              <option value="cost">Estimated cost</option>
            </select>
          </div>
        </div>
        <UsageDailyChart report={report} measure={view.measure} />
      </section>
      <TopTasks report={report} />
      <section className="usage-section" aria-labelledby={tableHeadingId}>
        <div className="section-header usage-section__header">
          <h2 id={tableHeadingId} className="section-title">
            Attempts
          </h2>
          <button
            type="button"
            className="button"
            onClick={() => downloadTextFile(usageCsvFileName(report.query.from, report.query.to), usageCsv(report.rows), 'text/csv')}
          >
            Export CSV
          </button>
        </div>
        <p className="muted">
          {pluralize(report.rows.length, 'attempt')} that reported usage, newest first.
          {report.rowsTruncated
            ? ` Only the newest ${formatTokens(report.rows.length)} are listed (and exported); the charts and totals count every one. Choose fewer days to see the rest.`
            : ''}
        </p>
        <UsageTable rows={report.rows} labelledBy={tableHeadingId} />
      </section>
    </>
  );
}

function UsageTotals({ report }: { report: UsageReport }) {
  const { tokens, cost } = report.total;
  return (
    <section aria-label="Totals">
      <dl className="usage-totals">
        <div className="usage-totals__item">
          <dt>Tokens</dt>
          <dd>{formatTokens(tokensInAll(tokens))}</dd>
        </div>
        <div className="usage-totals__item">
          <dt>Input</dt>
          <dd>
            {formatTokens(tokens.input)} <span className="muted">({formatTokens(tokens.cachedInput)} cached)</span>
          </dd>
        </div>
        <div className="usage-totals__item">
          <dt>Output</dt>
          <dd>
            {formatTokens(tokens.output)} <span className="muted">({formatTokens(tokens.reasoning)} reasoning)</span>
          </dd>
        </div>
        <div className="usage-totals__item">
          <dt>Estimated cost</dt>
          <dd>
            <CostEstimateText cost={cost} />
          </dd>
        </div>
      </dl>
    </section>
  );
}
