import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HostKey } from '../../shared/hosts';
import type { PresentedHostKey } from '../ledger/hosts-repository';
import { knownHostsFilesOption, runSsh, sshBaseArgs, type SshSettings } from './ssh-command';
import { sshFailure } from './ssh-failure';

/**
 * Host keys, checked as OpenSSH checks them and never accepted silently (issue 28).
 *
 * Every connection runs with `StrictHostKeyChecking=yes`, so ssh itself refuses a host whose key no
 * known_hosts file (the operator's, or the console's own) holds, and one whose key changed. The
 * console reads which of the two it was from ssh's own message, and then:
 *
 * - unknown: it fetches the key the host presents with a connection that records it into an empty
 *   scratch known_hosts and authenticates with nothing (`accept-new`, every auth method off), so ssh
 *   writes the entry exactly as it will later look it up (HostKeyAlias, `[host]:port`, hashing from
 *   the operator's config) and nothing is logged in to. The operator sees its SHA256 fingerprint;
 *   Trust appends that entry to the console's known_hosts in the data directory;
 * - changed: ssh names the key it has on file (file and line) and the fingerprint of the one the host
 *   sent. Both are shown, with what to check, and nothing is offered that would replace the old one.
 */

export type HostKeyRefusal = { kind: 'unknown' } | { kind: 'changed'; onFile: { file: string; line: number } | null; presented: HostKey | null };

/** Whether ssh refused the host's key because it is unknown or changed (its messages are fixed English text). */
export function hostKeyRefusal(stderr: string): HostKeyRefusal | null {
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED/.test(stderr) || /Host key for \S+ has changed/.test(stderr)) {
    const offending = /^Offending \S+ key in (.+):(\d+)\s*$/m.exec(stderr);
    const sent = /The fingerprint for the (\S+) key sent by the remote host is\s*\n\s*(SHA256:[A-Za-z0-9+/]{43})/.exec(stderr);
    return {
      kind: 'changed',
      onFile: offending ? { file: offending[1]!, line: Number(offending[2]) } : null,
      presented: sent ? { type: sent[1]!, fingerprint: sent[2]! } : null,
    };
  }
  if (/No \S+ host key is known for .* and you have requested strict checking/.test(stderr)) return { kind: 'unknown' };
  return null;
}

const keyTypeLabels: Record<string, string> = {
  'ssh-ed25519': 'ED25519',
  'sk-ssh-ed25519@openssh.com': 'ED25519-SK',
  'ssh-rsa': 'RSA',
  'ssh-dss': 'DSA',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'ECDSA-SK',
};

/** A known_hosts line's key as `ssh-keygen -lf` prints it: type and `SHA256:` + unpadded base64 of the key's SHA-256. */
export function knownHostsLineKey(line: string): HostKey | null {
  const fields = line.trim().split(/\s+/);
  // A marked line (@cert-authority, @revoked) is not a host's own key.
  if (fields.length < 3 || fields[0]!.startsWith('@') || fields[0]!.startsWith('#')) return null;
  const [, keyType, blob] = fields as [string, string, string];
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) return null;
  const digest = createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64').replace(/=+$/, '');
  const type = keyTypeLabels[keyType] ?? (keyType.startsWith('ecdsa-sha2-') ? 'ECDSA' : keyType.toUpperCase());
  return { type, fingerprint: `SHA256:${digest}` };
}

const maxKnownHostsBytes = 16 * 1024 * 1024;

/** The key on one line of a known_hosts file (the one ssh named as offending), or null. */
export async function knownHostsFileKey(file: string, lineNumber: number): Promise<HostKey | null> {
  try {
    if ((await stat(file)).size > maxKnownHostsBytes) return null;
    const line = (await readFile(file, 'utf8')).split('\n')[lineNumber - 1];
    return line === undefined ? null : knownHostsLineKey(line);
  } catch {
    return null;
  }
}


const fetchTimeoutMs = 30_000;
const entryLine = /^\S+ [A-Za-z0-9@.-]+ [A-Za-z0-9+/]+={0,2}$/;

/** The key a host presents now, with the known_hosts entries ssh wrote for it, for Trust to append. */
export async function fetchPresentedKey(settings: SshSettings, name: string): Promise<PresentedHostKey> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'operator-console-host-key-'));
  try {
    const scratchFile = path.join(scratch, 'known_hosts');
    const result = await runSsh(settings, {
      args: [
        ...sshBaseArgs(settings),
        '-o',
        'StrictHostKeyChecking=accept-new',
        '-o',
        knownHostsFilesOption([scratchFile]),
        '-o',
        'GlobalKnownHostsFile=/dev/null',
        // Nothing is logged in to: the key is recorded at key exchange, before any authentication.
        '-o',
        'PubkeyAuthentication=no',
        '-o',
        'PasswordAuthentication=no',
        '-o',
        'KbdInteractiveAuthentication=no',
        '-o',
        'GSSAPIAuthentication=no',
        '-o',
        'HostbasedAuthentication=no',
        '-o',
        'IdentityAgent=none',
        '--',
        name,
        'true',
      ],
      timeoutMs: fetchTimeoutMs,
      maxOutputBytes: 64 * 1024,
    });
    let written = '';
    try {
      written = await readFile(scratchFile, 'utf8');
    } catch {
      // Nothing was recorded: ssh did not get as far as the key exchange.
    }
    const entries = written.split('\n').filter((line) => entryLine.test(line));
    const key = entries.length > 0 ? knownHostsLineKey(entries[0]!) : null;
    if (!key) throw sshFailure(name, result, { during: 'connect', timeoutMs: fetchTimeoutMs });
    return { key, entries: entries.filter((line) => knownHostsLineKey(line)?.fingerprint === key.fingerprint) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The console's own known_hosts, `<data dir>/ssh/known_hosts`: what the operator trusted from the console. */
export class ConsoleKnownHosts {
  constructor(readonly file: string) {}

  async append(entries: string[]): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await appendFile(this.file, entries.map((entry) => `${entry}\n`).join(''), { mode: 0o600 });
  }
}
