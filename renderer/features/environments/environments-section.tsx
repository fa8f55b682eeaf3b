import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { Agent, Environment } from '../../../shared/entities';
import { actionPath } from '../../../shared/routes';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { Loading, QueryError } from '../../ui/query-error';
import { useAgents } from '../agents/use-agents';
import { EnvironmentDialog } from './environment-dialog';
import { EnvironmentNotices } from './environment-notices';
import { networkSummary, sandboxLabel } from './environment-labels';
import { useDeleteEnvironment, useEnvironments } from './use-environments';
import { useHosts } from '../hosts/use-hosts';

type OpenDialog = { kind: 'create' } | { kind: 'edit'; environmentId: string; allowHost?: string } | { kind: 'delete'; environmentId: string } | null;

/**
 * Settings → Environments: the list, New environment, Edit and Delete. `environmentId` (from the
 * route) brings one environment into view with its notices; with `allowHost` too (a "Network
 * request blocked" notice's link), its form opens with that host filled in, ready to save.
 */
export function EnvironmentsSection({ environmentId, allowHost }: { environmentId?: string | undefined; allowHost?: string | undefined }) {
  const environments = useEnvironments();
  const agents = useAgents();
  const hosts = useHosts();
  const [, navigate] = useLocation();
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [done, setDone] = useState<string | null>(null);
  const list = environments.data ?? [];
  const target = dialog && dialog.kind !== 'create' ? list.find((environment) => environment.id === dialog.environmentId) : undefined;
  const routed = environmentId ? list.find((environment) => environment.id === environmentId) : undefined;

  // A link with a host to allow opens the form once the environment is known; the link's query is
  // then dropped, so Back or a reload does not open it again.
  const opened = useRef<string | null>(null);
  useEffect(() => {
    const key = `${environmentId ?? ''}|${allowHost ?? ''}`;
    if (!environmentId || !allowHost || !routed || opened.current === key) return;
    opened.current = key;
    setDone(null);
    setDialog({ kind: 'edit', environmentId, allowHost });
  }, [environmentId, allowHost, routed]);

  const closeDialog = () => {
    setDialog(null);
    if (allowHost && environmentId) navigate(actionPath({ kind: 'settings-environment', environmentId }), { replace: true });
  };
  const open = (next: OpenDialog) => {
    setDone(null);
    setDialog(next);
  };

  let body;
  if (environments.isPending) body = <Loading what="environments" />;
  else if (environments.isError) body = <QueryError what="environments" error={environments.error} onRetry={() => void environments.refetch()} />;
  else {
    body = (
      <ul className="item-list environment-list" aria-label="Environments">
        {list.map((environment) => (
          <EnvironmentRow
            key={environment.id}
            environment={environment}
            agents={(agents.data ?? []).filter((agent) => agent.environmentId === environment.id)}
            hostName={environment.hostId ? (hosts.data?.find((host) => host.id === environment.hostId)?.name ?? 'an SSH host') : null}
            selected={environment.id === environmentId}
            onEdit={() => open({ kind: 'edit', environmentId: environment.id })}
            onDelete={() => open({ kind: 'delete', environmentId: environment.id })}
          />
        ))}
      </ul>
    );
  }

  return (
    <section className="settings-section" aria-labelledby="settings-environments-heading">
      <div className="section-header">
        <h2 id="settings-environments-heading" className="section-title">
          Environments
        </h2>
        <button type="button" className="button button--primary" onClick={() => open({ kind: 'create' })}>
          New environment
        </button>
      </div>
      <p className="section-intro">
        Where an agent’s runs execute: in the OS sandbox, which confines what they write and what their network reaches, or
        without one, as your own programs. A sandboxed run reaches only what its environment’s network allows; what it
        was refused is on its Network panel, and the first refusal raises a notice that leads back here.
      </p>
      {environmentId && !environments.isPending && !routed ? (
        <p className="callout callout--warning" role="note">
          That environment is no longer in the console. The list below has every one there is.
        </p>
      ) : null}
      <p className="form-success" aria-live="polite">
        {done}
      </p>
      {routed ? <EnvironmentNotices environment={routed} /> : null}
      {body}
      {dialog?.kind === 'create' ? (
        <EnvironmentDialog
          onClose={closeDialog}
          onSaved={(saved) => {
            closeDialog();
            setDone(`Created ${saved.name}. Choose it as an agent’s environment on the agent’s page.`);
          }}
        />
      ) : null}
      {dialog?.kind === 'edit' && target ? (
        <EnvironmentDialog
          key={`${target.id}|${dialog.allowHost ?? ''}`}
          environment={target}
          {...(dialog.allowHost ? { allowHost: dialog.allowHost } : {})}
          onClose={closeDialog}
          onSaved={(saved, changed) => {
            closeDialog();
            setDone(changed ? `Saved ${saved.name}. Runs that start from now on get the change.` : `Nothing to save: ${saved.name} is unchanged.`);
          }}
        />
      ) : null}
      {dialog?.kind === 'delete' && target ? (
        <DeleteEnvironmentDialog
          environment={target}
          agents={(agents.data ?? []).filter((agent) => agent.environmentId === target.id)}
          onClose={() => setDialog(null)}
          onDeleted={() => {
            setDialog(null);
            setDone(`Deleted ${target.name}.`);
            if (environmentId === target.id) navigate(actionPath({ kind: 'settings-environments' }), { replace: true });
          }}
        />
      ) : null}
    </section>
  );
}

function EnvironmentRow({
  environment,
  agents,
  hostName,
  selected,
  onEdit,
  onDelete,
}: {
  environment: Environment;
  agents: Agent[];
  /** The SSH host it names; null: this machine. */
  hostName: string | null;
  selected: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const rowRef = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (selected) rowRef.current?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
  const sandboxed = environment.kind === 'sandboxed';
  return (
    <li ref={rowRef} className={`item-list__row environment-row${selected ? ' item-list__row--target' : ''}`} aria-current={selected ? 'true' : undefined}>
      <div className="item-list__main">
        <div className="item-list__line">
          <span className="item-list__name">{environment.name}</span>
          {environment.builtIn ? <span className="status-badge tone-muted">Built in</span> : null}
        </div>
        <dl className="inline-facts" aria-label={`${environment.name} details`}>
          <div>
            <dt>Host</dt>
            <dd>
              {hostName === null ? (
                'This machine'
              ) : (
                <>
                  <Link href="/settings/hosts">{hostName}</Link> <span className="muted">(its runs execute there)</span>
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Sandbox</dt>
            <dd>{sandboxLabel(environment.kind)}</dd>
          </div>
          <div>
            <dt>Network</dt>
            <dd>{networkSummary(environment)}</dd>
          </div>
          {sandboxed ? (
            <div>
              <dt>Allowed hosts</dt>
              <dd>
                {environment.allowedHosts.length === 0 ? (
                  <span className="muted">{environment.networkMode === 'provider-only' ? 'None: the model’s API only' : 'None'}</span>
                ) : (
                  <>
                    {environment.allowedHosts.map((host, index) => (
                      <span key={host}>
                        {index > 0 ? ', ' : null}
                        <code>{host}</code>
                      </span>
                    ))}
                    {environment.networkMode !== 'provider-only' ? <span className="muted"> (apply with Provider only)</span> : null}
                  </>
                )}
              </dd>
            </div>
          ) : null}
          <div>
            <dt>Managed AI connection</dt>
            <dd>{sandboxed || environment.requiresConnection ? 'Required' : 'Not required'}</dd>
          </div>
          <div>
            <dt>Agents</dt>
            <dd>
              {agents.length === 0 ? (
                <span className="muted">None</span>
              ) : (
                agents.map((agent, index) => (
                  <span key={agent.id}>
                    {index > 0 ? ', ' : null}
                    <Link href={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link>
                  </span>
                ))
              )}
            </dd>
          </div>
        </dl>
      </div>
      <div className="item-list__actions">
        <button type="button" className="button button--small" aria-label={`Edit ${environment.name}`} onClick={onEdit}>
          Edit
        </button>
        {environment.builtIn ? null : (
          <button type="button" className="button button--small button--danger-quiet" aria-label={`Delete ${environment.name}`} onClick={onDelete}>
            Delete
          </button>
        )}
      </div>
    </li>
  );
}

function DeleteEnvironmentDialog({
  environment,
  agents,
  onClose,
  onDeleted,
}: {
  environment: Environment;
  agents: Agent[];
  onClose: () => void;
  onDeleted: () => void;
}) {
  const deleteEnvironment = useDeleteEnvironment();
  return (
    <ConfirmDialog
      title="Delete environment"
      description={
        <p>
          Delete {environment.name}?{' '}
          {agents.length > 0
            ? `${agents.map((agent) => agent.name).join(', ')} ${agents.length === 1 ? 'is' : 'are'} in it: move ${agents.length === 1 ? 'it' : 'them'} to another environment first.`
            : 'No agent is in it. Runs it confined keep their record.'}
        </p>
      }
      confirmLabel="Delete"
      error={deleteEnvironment.error}
      errorPrefix="Could not delete the environment."
      onConfirm={() => deleteEnvironment.mutateAsync(environment.id).then(onDeleted)}
      onClose={onClose}
    />
  );
}
