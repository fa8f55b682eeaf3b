import { useId } from 'react';
import type { RunDetail, RunSetup, VariableLayer } from '../../../shared/entities';
import { actionRoute } from '../../../shared/routes';
import { RunPanel } from './run-panel';

const layerLabels: Record<VariableLayer, string> = { project: 'Project', agent: 'Agent', task: 'Task' };

function setupOutcome(setup: NonNullable<RunSetup['setup']>): string {
  const how = setup.signal ? `ended by ${setup.signal}` : setup.exitCode !== null ? `exit code ${setup.exitCode}` : null;
  switch (setup.status) {
    case 'running':
      return 'Running now';
    case 'succeeded':
      return 'Succeeded';
    case 'failed':
      return how ? `Failed (${how})` : 'Failed';
    case 'cancelled':
      return 'Stopped';
  }
}

/**
 * What the run's preparation did with its project's setup: the setup command and how it ended, the
 * files copied into the view (and those that were not, with why), and the variables it was given,
 * merged, each with the layer it came from. Secret values are never shown.
 */
export function RunSetupPanel({ run }: { run: RunDetail }) {
  const copiedId = useId();
  const skippedId = useId();
  const variablesId = useId();
  const { setup } = run;
  // A project with no setup at all gives its runs nothing to show here.
  if (!setup || (!setup.setupCommand && setup.copiedFiles.length === 0 && setup.skippedFiles.length === 0 && setup.variables.length === 0)) return null;
  return (
    <RunPanel title="Setup" labelledRegion>
      <dl className="facts facts--compact">
        <dt>Setup command</dt>
        <dd>
          {setup.setupCommand ? (
            <>
              <code>{setup.setupCommand}</code>
              <span className="muted"> · {setup.setup ? setupOutcome(setup.setup) : 'Not run in this attempt'}</span>
            </>
          ) : (
            <span className="muted">None</span>
          )}
        </dd>
        <dt id={copiedId}>Files copied</dt>
        <dd>
          {setup.copiedFiles.length > 0 ? (
            <ul className="plain-list" aria-labelledby={copiedId}>
              {setup.copiedFiles.map((file) => (
                <li key={file.path}>
                  <code>{file.path}</code> <span className="muted">({file.bytes.toLocaleString()} bytes)</span>
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">None</span>
          )}
        </dd>
        {setup.skippedFiles.length > 0 ? (
          <>
            <dt id={skippedId}>Not copied</dt>
            <dd>
              <ul className="plain-list" aria-labelledby={skippedId}>
                {setup.skippedFiles.map((file) => (
                  <li key={`${file.path}:${file.reason}`}>
                    <code>{file.path}</code> <span className="muted">· {file.reason}</span>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
      </dl>
      {setup.variables.length > 0 ? (
        <div className="table-wrap">
          <table className="data-table data-table--compact" aria-labelledby={variablesId}>
            <caption id={variablesId} className="run-setup__caption">
              Environment variables
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {setup.variables.map((variable) => (
                <tr key={variable.name}>
                  <th scope="row">
                    <code>{variable.name}</code>
                  </th>
                  <td>{variable.secret ? <span className="muted">Secret (hidden)</span> : <code>{variable.value}</code>}</td>
                  <td>
                    {layerLabels[variable.source]}
                    {variable.overrides.length > 0 ? (
                      <span className="muted"> · overrides {variable.overrides.map((layer) => layerLabels[layer].toLowerCase()).join(', ')}</span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">No environment variables from the project, the agent or the task.</p>
      )}
      <p>
        <a href={actionRoute({ kind: 'project-setup', projectId: run.projectId })}>Open the project’s setup</a>
      </p>
    </RunPanel>
  );
}
