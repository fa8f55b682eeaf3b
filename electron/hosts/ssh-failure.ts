import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import type { ToolResult } from '../sandbox/tool-sandbox';

/**
 * ssh's failures as stable reasons (code `ssh_failed`), each with what to do next. ssh's own words are
 * quoted after them, cut short and stripped of control characters: part of what ssh prints can come
 * from the host (a banner, a disconnect message), and the host is not trusted to draw on the screen.
 */

export const sshFailureReasons = [
  /** No `ssh` program on the PATH. */
  'ssh_not_installed',
  /** `ssh -G` refused the name or the config (a bad option, a name ssh will not take). */
  'bad_config',
  /** The name does not resolve, or nothing answers on its port. */
  'unreachable',
  /** ssh reached the host but could not log in without asking (BatchMode): no key that it accepts. */
  'auth_failed',
  /** ssh refused the host's key for a reason other than unknown or changed (a revoked key, say). */
  'host_key_refused',
  /** ssh or the host took longer than the time limit. */
  'timed_out',
  /** The host's answer to Test host is not the report the console asked for. */
  'probe_garbled',
  /** The host answered far more than a report is. */
  'probe_too_large',
  /** ssh could not carry a run's model traffic back to the console (the host refused the forwarding, or it never came up). */
  'tunnel_failed',
  /** Anything else ssh said no to. */
  'ssh_error',
] as const;

export type SshFailureReason = (typeof sshFailureReasons)[number];

/** The last lines ssh printed, as one short line of plain text. */
export function sshWords(text: string, maxLength = 300): string {
  const lines = text
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !/^Pseudo-terminal will not be allocated/.test(line));
  const words = lines.slice(-2).join(' ');
  return words.length > maxLength ? `${words.slice(0, maxLength - 1)}…` : words || 'nothing';
}

export function sshError(reason: SshFailureReason, message: string): OperatorError {
  return new OperatorError({ code: 'ssh_failed', reason, message, actionUrl: actionRoute({ kind: 'settings-hosts' }) });
}

/** The program could not be started at all. */
export function sshNotInstalled(program: string): OperatorError {
  return sshError('ssh_not_installed', `The console could not run ${program}: install OpenSSH's client (Debian: apt install openssh-client) and test the host again.`);
}

/** What a failed ssh (or ssh -G) means for the operator. */
export function sshFailure(name: string, result: ToolResult, context: { during: 'resolve' | 'connect'; timeoutMs?: number; detail?: string }): OperatorError {
  const said = sshWords(result.stderr);
  if (result.timedOut) {
    const seconds = context.timeoutMs ? ` in ${Math.round(context.timeoutMs / 1000)} s` : '';
    return sshError('timed_out', `ssh to ${name} did not finish${seconds} and was stopped. Check that \`ssh ${name} true\` returns at once in a terminal, then test again.`);
  }
  if (context.during === 'resolve') {
    return sshError('bad_config', `ssh will not take ${name}: ${context.detail ?? said}. Check the name and your ssh config (\`ssh -G ${name}\` shows what ssh makes of it).`);
  }
  const stderr = result.stderr;
  if (/Could not resolve hostname/i.test(stderr)) {
    return sshError('unreachable', `${name} does not resolve (${said}). Check its HostName in your ssh config, or the name, then test again.`);
  }
  if (/Permission denied \(/.test(stderr)) {
    return sshError(
      'auth_failed',
      `ssh reached ${name} but could not log in without asking (${said}). The console never types a password or passphrase: load your key into your ssh agent (ssh-add) or name an IdentityFile for the host in your ssh config, check that \`ssh -o BatchMode=yes ${name} true\` works in a terminal, then test again.`,
    );
  }
  if (/Host key verification failed/.test(stderr)) {
    return sshError('host_key_refused', `ssh refused ${name}'s host key (${said}). Check the host's key with its administrator, then test again.`);
  }
  if (/Connection refused|Connection timed out|No route to host|Network is unreachable|Connection closed|Connection reset|kex_exchange_identification|port \d+: /i.test(stderr)) {
    return sshError('unreachable', `ssh could not reach ${name} (${said}). Check that the host is up and that \`ssh ${name}\` works from this machine, then test again.`);
  }
  return sshError('ssh_error', `ssh to ${name} failed (exit ${result.exitCode ?? result.signal ?? 'unknown'}: ${said}). Check that \`ssh ${name} true\` works in a terminal, then test again.`);
}
