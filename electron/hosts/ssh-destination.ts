import type { SshDestination } from '../../shared/hosts';
import { runSsh, sshBaseArgs, type SshSettings } from './ssh-command';
import { sshFailure, sshWords } from './ssh-failure';

/**
 * Where a name leads, as ssh itself works it out: `ssh -G` prints the configuration it would use
 * (the operator's aliases, HostName, User, Port, ProxyJump, known_hosts files) without connecting.
 * The console passes the operator's known_hosts files back to ssh with its own added, so adding the
 * console's file never hides theirs.
 */

export interface ResolvedDestination {
  destination: SshDestination;
  /** The operator's UserKnownHostsFile list for this host (ssh prints it space-separated, tildes expanded). */
  userKnownHostsFiles: string[];
}

const resolveTimeoutMs = 10_000;

export async function resolveDestination(settings: SshSettings, name: string): Promise<ResolvedDestination> {
  const result = await runSsh(settings, { args: [...sshBaseArgs(settings), '-G', '--', name], timeoutMs: resolveTimeoutMs, maxOutputBytes: 256 * 1024 });
  if (result.exitCode !== 0 || result.truncated || result.timedOut) {
    throw sshFailure(name, result, { during: 'resolve' });
  }
  const values = new Map<string, string>();
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const key = line.slice(0, space).toLowerCase();
    // The first of a key is the value in use (ssh -G prints a multi-valued option once per value).
    if (!values.has(key)) values.set(key, line.slice(space + 1).trim());
  }
  const port = Number(values.get('port'));
  const hostname = values.get('hostname');
  const user = values.get('user');
  if (!hostname || !user || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw sshFailure(name, result, { during: 'resolve', detail: `ssh -G did not say where ${name} leads (${sshWords(result.stdout.toString('utf8'))})` });
  }
  const proxyJump = values.get('proxyjump');
  const files = (values.get('userknownhostsfile') ?? '').split(' ').filter((file) => file.length > 0);
  return {
    destination: { user, hostname, port, proxyJump: proxyJump && proxyJump !== 'none' ? proxyJump : null },
    userKnownHostsFiles: files,
  };
}
