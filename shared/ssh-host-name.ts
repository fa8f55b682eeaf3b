/**
 * The name of an SSH host as the operator adds it in Settings → Hosts (issue 28): the name `ssh`
 * knows, an alias from ~/.ssh/config, a host name or address, `user@host`. The console passes it to
 * the system `ssh` as its destination, after `--`.
 *
 * It is refused, with what is wrong, when it could be anything but a destination:
 * - a leading `-` would be read by ssh as an option (`-oProxyCommand=…` runs a program);
 * - whitespace, control characters and quotes would be split or misread on the way (ssh's own
 *   config tokens, a `%h` in an operator's ProxyCommand that a shell then reads);
 * - anything beyond letters, digits and `. _ - @ : [ ] %`, which host names, IPv4 and bracketed
 *   IPv6 addresses (with a zone), aliases and one `user@` need, is refused too: a name with shell
 *   metacharacters is never one an operator meant.
 *
 * One place for the renderer (the form says it as it is typed), the contract (both transports refuse
 * it before the core sees it) and the host service, which checks again before running ssh.
 */

/** DNS's limit on a name, with room for `user@` and an IPv6 address's brackets and zone. */
export const maxSshHostNameLength = 300;

export type SshHostNameParse = { ok: true; name: string } | { ok: false; problem: string };

const allowed = /^[A-Za-z0-9._@:[\]%-]+$/;

export function parseSshHostName(value: string): SshHostNameParse {
  if (value.length === 0) return { ok: false, problem: 'Give the host’s name: an alias from your ssh config, a host name or user@host.' };
  if (value.length > maxSshHostNameLength) return { ok: false, problem: `That is longer than ${maxSshHostNameLength} characters: no host name is.` };
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return { ok: false, problem: 'A host name has no control characters (a line break, a tab, an escape).' };
  if (value.startsWith('-')) {
    return { ok: false, problem: 'A host name cannot start with “-”: ssh would read it as an option. Put options in your ssh config under a Host alias and add the alias.' };
  }
  if (/\s/.test(value)) return { ok: false, problem: 'A host name has no spaces. Write the name alone, as you would after `ssh`.' };
  if (!allowed.test(value)) {
    return { ok: false, problem: 'A host name has only letters, digits and . _ - @ : [ ] %. Put anything else in your ssh config under a Host alias and add the alias.' };
  }
  const at = value.split('@');
  if (at.length > 2 || at.some((part) => part.length === 0)) return { ok: false, problem: 'Write user@host with one @ and both parts, or the host alone.' };
  if (at.at(-1)!.startsWith('-')) return { ok: false, problem: 'The host after @ cannot start with “-”: ssh would read it as an option.' };
  return { ok: true, name: value };
}
