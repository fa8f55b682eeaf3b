import type { Host, HostReport, HostTest, SshDestination } from '../../../shared/hosts';
import { formatBytes } from '../../ui/format';

/** Where the name led at the last test: `user@hostname:port`, and the jump host when there is one. */
export function destinationLabel(destination: SshDestination): string {
  return `${destination.user}@${destination.hostname}:${destination.port}${destination.proxyJump ? ` via ${destination.proxyJump}` : ''}`;
}

/** The host's state in a word, for its row: never colour alone. */
export function hostStateLabel(host: Host): { label: string; tone: 'muted' | 'success' | 'warning' | 'danger' } {
  switch (host.lastTest?.outcome) {
    case undefined:
      return { label: 'Not tested', tone: 'muted' };
    case 'ready':
      return { label: 'Ready', tone: 'success' };
    case 'host_key_unknown':
      return { label: 'Host key not trusted', tone: 'warning' };
    case 'host_key_changed':
      return { label: 'Host key changed', tone: 'danger' };
  }
}

/** The name ssh-keygen -R takes for the host's entry: `host`, or `[host]:port` off port 22. */
function knownHostsName(destination: SshDestination): string {
  return destination.port === 22 ? destination.hostname : `[${destination.hostname}]:${destination.port}`;
}

/** What the last Test host found: the report, or a host key for the operator to decide on. */
export function HostTestView({ host, test, trusting, onTrust }: { host: Host; test: HostTest; trusting: boolean; onTrust: (fingerprint: string) => void }) {
  if (test.outcome === 'ready') return <HostReportView host={host} report={test.report} />;
  if (test.outcome === 'host_key_unknown') {
    return (
      <div className="callout callout--warning" role="region" aria-label={`Host key of ${host.name}`}>
        <p>
          <strong>ssh does not know this host’s key yet</strong>, so nothing was logged in to. The key {host.name} shows:
        </p>
        <p>
          {test.presented.type} key fingerprint <code>{test.presented.fingerprint}</code>
        </p>
        <p>
          Compare it with the fingerprint the host’s administrator gives you (on the host: <code>ssh-keygen -lf /etc/ssh/ssh_host_{test.presented.type.toLowerCase()}_key.pub</code>). Trust
          it only if the two are the same: it is written to the console’s own known_hosts, and ssh checks the host against it from then on.
        </p>
        <p>
          <button type="button" className="button button--small" aria-disabled={trusting || undefined} onClick={() => !trusting && onTrust(test.presented.fingerprint)}>
            {trusting ? 'Trusting…' : 'Trust this key'}
          </button>
        </p>
      </div>
    );
  }
  return (
    <div className="callout callout--danger" role="region" aria-label={`Host key of ${host.name}`}>
      <p>
        <strong>The host’s key changed, and ssh refused it.</strong> Someone may be between you and the host, or the host was reinstalled or its key
        replaced. Nothing was logged in to, and the console will not replace the key it had.
      </p>
      <dl className="facts">
        <dt>Key on file</dt>
        <dd>
          {test.known ? (
            <>
              {test.known.type} <code>{test.known.fingerprint}</code> in <code>{test.known.file}</code>, line {test.known.line}
            </>
          ) : (
            'ssh did not say which'
          )}
        </dd>
        <dt>Key the host shows now</dt>
        <dd>{test.presented ? <>{test.presented.type} <code>{test.presented.fingerprint}</code></> : 'ssh did not say'}</dd>
      </dl>
      <p>
        Ask the host’s administrator whether its key was replaced, and compare the new fingerprint with the one they give you. Only if it is the
        host’s own: remove the old entry with{' '}
        <code>
          ssh-keygen -R {knownHostsName(test.destination)}
          {test.known ? ` -f ${test.known.file}` : ''}
        </code>{' '}
        and test the host again.
      </p>
    </div>
  );
}

function HostReportView({ host, report }: { host: Host; report: HostReport }) {
  const bwrap = report.bubblewrap;
  return (
    <dl className="facts" aria-label={`What ${host.name} has`}>
      <dt>Bubblewrap</dt>
      <dd>
        {bwrap ? (
          <>
            {bwrap.version ?? 'installed'} (<code>{bwrap.path}</code>);{' '}
            {bwrap.userNamespaces ? 'user namespaces work' : `user namespaces refused: ${bwrap.refusal ?? 'no reason given'}. Sandboxed runs need them.`}
          </>
        ) : (
          'Not installed: sandboxed runs need it (Debian: apt install bubblewrap).'
        )}
      </dd>
      <dt>Git</dt>
      <dd>{report.git ? report.git.version : 'Not installed: runs need git (Debian: apt install git).'}</dd>
      <dt>Python</dt>
      <dd>
        {report.python
          ? `${report.python.version} (the console's run supervisor there uses it)`
          : report.python === null
            ? "Not installed: runs need python3 for the console's supervisor (Debian: apt install python3)."
            : 'Not asked yet: test the host again.'}
      </dd>
      {report.account ? (
        <>
          <dt>Account</dt>
          <dd>
            {report.account.uid !== 0
              ? `uid ${report.account.uid}: sandboxed runs run as this account, in a user namespace.`
              : report.account.setpriv
                ? 'root: sandboxed runs run there as nobody (through setpriv), as here when the console runs as root.'
                : 'root, and setpriv is not installed: sandboxed runs cannot start there (Debian: apt install util-linux), or reach the host as another user.'}
          </dd>
        </>
      ) : null}
      <dt>Agent CLIs</dt>
      <dd>
        <ul className="plain-list" aria-label={`Agent CLIs on ${host.name}`}>
          {report.clis.map((cli) => (
            <li key={cli.id}>
              {cli.displayName}: {cli.version ?? <span className="muted">not found on the PATH ssh gives</span>}
              {cli.version && cli.testedVersion && cli.version !== cli.testedVersion ? <span className="muted"> (tested with {cli.testedVersion})</span> : null}
            </li>
          ))}
        </ul>
      </dd>
      <dt>Cores</dt>
      <dd>{report.cores}</dd>
      <dt>Free disk</dt>
      <dd>
        {formatBytes(report.homeFreeBytes)} in <code>{report.home}</code>
      </dd>
      <dt>PATH</dt>
      <dd>
        <code>{report.path}</code>
      </dd>
    </dl>
  );
}
