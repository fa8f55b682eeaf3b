import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OperatorError } from '../../../shared/errors';
import { runGit } from '../../git/git-command';
import { sshWords } from '../ssh-failure';
import { runOnHost, type HostConnection } from '../remote-run/host-connection';

/**
 * STAND-IN until the remote-code branch lands its own (same name, same signature): the run's base
 * revision into a repository on the host, checked out there. This one sends a bundle of the whole
 * history reachable from the run's branch, not only what the host lacks, and trusts nothing it gets
 * back but the exit code. It exists so a run on a host has its code; remote-git replaces it.
 */
export interface SendBaseRevisionInput {
  ssh: HostConnection;
  /** The host's name, as ssh is given it. */
  host: string;
  /** The run's own repository on this machine (a bare common dir), whose branch is at `baseRevision`. */
  localRepository: string;
  baseRevision: string;
  /** Where the repository goes on the host: the run's view, in its remote task root. */
  remoteRepository: string;
}

export async function sendBaseRevision({ ssh, host, localRepository, baseRevision, remoteRepository }: SendBaseRevisionInput): Promise<void> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(baseRevision)) throw new Error(`not a commit: ${baseRevision}`);
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'oc-bundle-'));
  try {
    const bundle = path.join(scratch, 'base.bundle');
    const ref = 'refs/operator-console/base';
    await runGit(['--git-dir', localRepository, 'update-ref', ref, baseRevision]);
    try {
      await runGit(['--git-dir', localRepository, 'bundle', 'create', '--quiet', bundle, ref]);
    } finally {
      await runGit(['--git-dir', localRepository, 'update-ref', '-d', ref]).catch(() => undefined);
    }
    const receive = [
      'set -e',
      'umask 077',
      'b="$1.bundle.$$"',
      'cat >"$b"',
      'git init -q "$1"',
      'git -C "$1" fetch -q "$b" "refs/operator-console/base:refs/operator-console/base"',
      'git -C "$1" -c advice.detachedHead=false checkout -q --detach "$2"',
      'rm -f "$b"',
    ].join('; ');
    const result = await runOnHost(ssh, ['sh', '-c', receive, 'receive', remoteRepository, baseRevision], {
      stdin: await readFile(bundle),
      timeoutMs: 10 * 60_000,
      maxOutputBytes: 64 * 1024,
    });
    if (result.exitCode !== 0) {
      throw new OperatorError({
        code: 'git_failed',
        reason: 'send_failed',
        message: `The run's code could not be sent to ${host} (${sshWords(result.stderr)}). Check that git works there (Test host shows its version), then run the task again.`,
      });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
