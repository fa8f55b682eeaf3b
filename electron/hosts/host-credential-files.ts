import type { DeliveredFile } from '../providers/credential-delivery';
import type { Owner } from '../platform/safe-path';
import { runRemoteScript, type SshHost } from './remote-script';
import { sshError, sshFailure } from './ssh-failure';

/**
 * A managed connection's files (a CLI's login file, such as Codex's `auth.json`, or the config that
 * points it at the model tunnel) into a run's provider home on an SSH host, 0600, and out again when
 * the attempt ends (issue 28). The provider home is in the run's writable roots there, so the agent of
 * an earlier attempt may have left links in it: no folder on the way may be a link, the file is made
 * anew with O_EXCL (`set -C`), never opened through whatever is at its path, and removing it never
 * follows a link either. One fixed script per file, its path and content as data. The project's
 * copied files reach the run's view there the same way (runs/attempt/prepare-on-host.ts).
 */

const writeScript = `set -u
umask 077
home=$1; relative=$2
case "/$relative/" in */../*|*/./*|//*) echo "operator-console-file: not a plain path: $relative" >&2; exit 4;; esac
dest=$home/$relative
dir=$(dirname "$dest")
mkdir -p "$dir" || exit 5
check=$dir
while [ "$check" != "$home" ] && [ "$check" != / ]; do
  if [ -L "$check" ]; then echo "operator-console-file: $check is a link" >&2; exit 4; fi
  check=$(dirname "$check")
done
if [ -L "$home" ]; then echo "operator-console-file: $home is a link" >&2; exit 4; fi
rm -f "$dest" && (set -C; cat > "$dest") && chmod 600 "$dest" || exit 1
# A root account's sandbox runs as another user: the file and the folders made for it become its.
owner=\${3:-}
if [ -n "$owner" ]; then
  check=$dest
  while [ "$check" != "$home" ] && [ "$check" != / ]; do chown -h "$owner" "$check" || exit 5; check=$(dirname "$check"); done
fi
`;

const removeScript = `set -u
home=$1; shift
[ -L "$home" ] && exit 0
for relative in "$@"; do
  case "/$relative/" in */../*|*/./*|//*) continue;; esac
  dest=$home/$relative; dir=$(dirname "$dest"); check=$dir; linked=no
  while [ "$check" != "$home" ] && [ "$check" != / ]; do [ -L "$check" ] && linked=yes; check=$(dirname "$check"); done
  [ "$linked" = no ] && rm -f "$dest"
done
exit 0
`;

const timeoutMs = 60_000;

/** `owner`: the sandbox's user on a root account (confine-on-host.ts), whose the files become; null for the account itself. */
export async function deliverFilesOnHost(target: SshHost, providerHome: string, files: readonly DeliveredFile[], owner: Owner | null = null): Promise<void> {
  for (const file of files) {
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content);
    const args = [providerHome, file.relativePath, ...(owner ? [`${owner.uid}:${owner.gid}`] : [])];
    const result = await runRemoteScript(target, { script: writeScript, args, stdin: content, timeoutMs, maxOutputBytes: 4096 });
    if (result.exitCode === 4) {
      throw sshError('ssh_error', `The run's ${file.relativePath} was not written on ${target.host}: ${result.stderr.trim().slice(0, 300)}. Discard the run and start the task again.`);
    }
    if (result.exitCode !== 0 || result.timedOut) throw sshFailure(target.host, result, { during: 'connect', timeoutMs });
  }
}

/** Removes what deliverFilesOnHost wrote; a host that does not answer keeps them until the run's task root there is cleaned up. */
export async function removeFilesOnHost(target: SshHost, providerHome: string, files: readonly DeliveredFile[]): Promise<void> {
  if (files.length === 0) return;
  await runRemoteScript(target, { script: removeScript, args: [providerHome, ...files.map((file) => file.relativePath)], timeoutMs, maxOutputBytes: 4096 });
}
