import { useEffect, useRef, useState } from 'react';
import type { Host } from '../../../shared/hosts';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { ErrorAlert } from '../../ui/error-alert';
import { Loading, QueryError } from '../../ui/query-error';
import { AddHostDialog } from './add-host-dialog';
import { HostTestView, destinationLabel, hostStateLabel } from './host-test-view';
import { useEnvironments } from '../environments/use-environments';
import { useHosts, useRemoveHost, useTestHost, useTrustHostKey } from './use-hosts';

type OpenDialog = { kind: 'add' } | { kind: 'remove'; host: Host } | null;

/**
 * Settings → Hosts (issue 28): SSH hosts by the name ssh knows, each with Test host (what it has) and
 * its host key to trust when ssh does not know it yet. A host just added is tested at once, so the
 * operator sees its fingerprint without another click.
 */
export function HostsSection() {
  const hosts = useHosts();
  const environments = useEnvironments();
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [done, setDone] = useState<string | null>(null);
  const [justAdded, setJustAdded] = useState<string | null>(null);

  let body;
  if (hosts.isPending) body = <Loading what="hosts" />;
  else if (hosts.isError) body = <QueryError what="hosts" error={hosts.error} onRetry={() => void hosts.refetch()} />;
  else if (hosts.data.length === 0) body = <p className="muted">No hosts yet. Add one by the name you give ssh.</p>;
  else {
    body = (
      <ul className="item-list host-list" aria-label="Hosts">
        {hosts.data.map((host) => (
          <HostRow
            key={host.id}
            host={host}
            environmentNames={(environments.data ?? []).filter((environment) => host.environmentIds.includes(environment.id)).map((environment) => environment.name)}
            testAtOnce={host.id === justAdded}
            onRemove={() => setDialog({ kind: 'remove', host })}
          />
        ))}
      </ul>
    );
  }

  return (
    <section className="settings-section" aria-labelledby="settings-hosts-heading">
      <div className="section-header">
        <h2 id="settings-hosts-heading" className="section-title">
          Hosts
        </h2>
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            setDone(null);
            setDialog({ kind: 'add' });
          }}
        >
          Add host
        </button>
      </div>
      <p className="section-intro">
        Machines reached over SSH, by the name your <code>ssh</code> knows: the console runs the system ssh with your config, agent and keys, never
        asks for a password, and never accepts a host key you have not seen. Here you add one, trust its key and see what it has (bubblewrap, git,
        Python, the agent CLIs, cores, free disk); an environment that names it runs its agents there, confined as here.
      </p>
      <p className="form-success" aria-live="polite">
        {done}
      </p>
      {body}
      {dialog?.kind === 'add' ? (
        <AddHostDialog
          onClose={() => setDialog(null)}
          onAdded={(host) => {
            setDialog(null);
            setDone(`Added ${host.name}.`);
            setJustAdded(host.id);
          }}
        />
      ) : null}
      {dialog?.kind === 'remove' ? <RemoveHostDialog host={dialog.host} onClose={() => setDialog(null)} onRemoved={() => { setDialog(null); setDone(`Removed ${dialog.host.name}.`); }} /> : null}
    </section>
  );
}

function HostRow({ host, environmentNames, testAtOnce, onRemove }: { host: Host; environmentNames: string[]; testAtOnce: boolean; onRemove: () => void }) {
  const test = useTestHost();
  const trust = useTrustHostKey();
  const state = hostStateLabel(host);
  const lastTest = host.lastTest;
  const testing = test.isPending;
  const runTest = () => {
    if (!testing) test.mutate(host.id);
  };

  // A host just added is tested once, at once.
  const tested = useRef(false);
  useEffect(() => {
    if (!testAtOnce || tested.current) return;
    tested.current = true;
    test.mutate(host.id);
  }, [testAtOnce, host.id, test]);

  return (
    <li className="item-list__row host-row">
      <div className="item-list__main">
        <div className="item-list__line">
          <span className="item-list__name">{host.name}</span>
          <span className={`status-badge tone-${state.tone}`}>
            <span className="status-badge__mark" aria-hidden="true" />
            {state.label}
          </span>
        </div>
        <dl className="inline-facts" aria-label={`${host.name} details`}>
          {lastTest ? (
            <>
              <div>
                <dt>Destination</dt>
                <dd>
                  <code>{destinationLabel(lastTest.destination)}</code>
                </dd>
              </div>
              <div>
                <dt>Tested</dt>
                <dd>{new Date(lastTest.testedAt).toLocaleString()}</dd>
              </div>
            </>
          ) : null}
          <div>
            <dt>Environments</dt>
            <dd>{environmentNames.length > 0 ? environmentNames.join(', ') : <span className="muted">None</span>}</dd>
          </div>
        </dl>
        <div aria-live="polite">
          {testing ? <p className="muted">Testing {host.name}…</p> : null}
          {!testing && test.isError ? <ErrorAlert error={test.error} prefix={`Could not test ${host.name}.`} /> : null}
          {!testing && trust.isError ? <ErrorAlert error={trust.error} prefix="The key was not trusted." /> : null}
          {!testing && lastTest ? (
            <HostTestView
              host={host}
              test={lastTest}
              trusting={trust.isPending}
              onTrust={(fingerprint) => trust.mutate({ hostId: host.id, fingerprint }, { onSuccess: () => test.mutate(host.id) })}
            />
          ) : null}
        </div>
      </div>
      <div className="item-list__actions">
        <button type="button" className="button button--small" aria-label={`Test host ${host.name}`} aria-disabled={testing || undefined} onClick={runTest}>
          {testing ? 'Testing…' : 'Test host'}
        </button>
        <button type="button" className="button button--small button--danger-quiet" aria-label={`Remove ${host.name}`} onClick={onRemove}>
          Remove
        </button>
      </div>
    </li>
  );
}

function RemoveHostDialog({ host, onClose, onRemoved }: { host: Host; onClose: () => void; onRemoved: () => void }) {
  const remove = useRemoveHost();
  return (
    <ConfirmDialog
      title="Remove host"
      description={
        <p>
          Remove {host.name} from the console? Host keys you trusted for it stay in the console’s known_hosts.
          {host.environmentIds.length > 0 ? ' An environment names it: choose another host for it first.' : ''}
        </p>
      }
      confirmLabel="Remove"
      error={remove.error}
      errorPrefix="Could not remove the host."
      onConfirm={() => remove.mutateAsync(host.id).then(onRemoved)}
      onClose={onClose}
    />
  );
}
