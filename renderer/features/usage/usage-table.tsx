import { Link } from 'wouter';
import { actionPath } from '../../../shared/routes';
import type { UsageRow } from '../../../shared/usage';
import { billingLabels, ownLoginConnectionLabel } from '../../../shared/usage-labels';
import { CostEstimateText } from './cost-estimate';
import { TokenCells, TokenColumnHeads } from './token-columns';
import { formatDayShort } from './usage-format';

/** One row per attempt that reported usage, newest first: what the CSV export holds too. */
export function UsageTable({ rows, labelledBy }: { rows: readonly UsageRow[]; labelledBy: string }) {
  return (
    <div className="table-wrap">
      <table className="data-table data-table--compact usage-table" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Task</th>
            <th scope="col" className="numeric">
              Attempt
            </th>
            <th scope="col">Project</th>
            <th scope="col">Agent</th>
            <th scope="col">Connection</th>
            <th scope="col">Model</th>
            <th scope="col">Billing</th>
            <TokenColumnHeads />
            <th scope="col">Estimated cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.runId}:${row.attemptNumber}`}>
              <td className="nowrap">
                <time dateTime={row.day}>{formatDayShort(row.day)}</time>
              </td>
              <th scope="row" className="data-table__primary">
                <Link href={actionPath({ kind: 'run', runId: row.runId })} className="table-link" title={row.taskTitle}>
                  {row.taskTitle}
                </Link>
              </th>
              <td className="numeric">{row.attemptNumber}</td>
              <td>{row.projectName}</td>
              <td>{row.agentName}</td>
              <td>{row.connectionName ?? <span className="muted">{ownLoginConnectionLabel}</span>}</td>
              <td>
                <code>{row.model || '—'}</code>
              </td>
              <td className="nowrap">{billingLabels[row.billing]}</td>
              <TokenCells tokens={row.tokens} />
              <td className="nowrap">
                <CostEstimateText cost={row.cost} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
