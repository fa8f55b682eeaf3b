import { z } from 'zod';
import type { HostReport } from '../../shared/hosts';
import { providerDefinitions } from '../providers/definitions';
import type { ProviderDefinition } from '../providers/provider-definition';
import { sshError } from './ssh-failure';

/**
 * Test host's question and the reading of its answer (issue 28). The question is a POSIX sh script
 * sent on ssh's stdin: it names what the host has (bubblewrap, and whether `bwrap --unshare-user …
 * true` really runs there; git; the agent CLIs and their versions; cores; free disk in the home; the
 * account's uid and whether setpriv is there, which a root account's sandbox needs) one
 * fact a line, each value cut to one line of printable ASCII.
 *
 * The answer comes from another machine and is hostile input like anything a run writes: it is read
 * as bytes of at most `maxProbeBytes` (ssh is stopped beyond that and at a time limit), must be UTF-8,
 * must hold exactly the framed lines the script prints (a known key, at most once, a bounded value of
 * printable ASCII), and its values go through a zod schema. Anything else is refused whole as
 * `probe_garbled`, naming the first line that is not right; nothing of it is stored or shown raw.
 */

export const maxProbeBytes = 32 * 1024;
const header = 'operator-console-probe 1';
const footer = 'end';
/** Lines a login shell may print before the script's own (a greeting in .bashrc): skipped, never read. */
const maxLinesBeforeHeader = 50;
const maxValueLength = 200;

/** The agent CLIs a host is asked about: each definition's own program (not the Command provider). */
export function probedClis(): ProviderDefinition[] {
  return providerDefinitions.filter((definition) => !definition.ownProgram && definition.executable !== null && /^[a-z0-9][a-z0-9-]*$/.test(definition.executable));
}

export function probeScript(clis: ProviderDefinition[] = probedClis()): string {
  const names = clis.map((definition) => definition.executable!).join(' ');
  return `export LC_ALL=C
bounded() { if command -v timeout >/dev/null 2>&1; then timeout 20 "$@"; else "$@"; fi; }
line() { head -n 1 | tr -cd '\\040-\\176' | cut -c 1-${maxValueLength}; }
echo '${header}'
printf 'path %s\\n' "$(printf '%s' "$PATH" | line)"
printf 'home %s\\n' "$(printf '%s' "$HOME" | line)"
printf 'cores %s\\n' "$( (getconf _NPROCESSORS_ONLN || nproc) 2>/dev/null | line)"
printf 'home-free-kib %s\\n' "$(df -Pk "$HOME" 2>/dev/null | tail -n 1 | awk '{print $4}' | line)"
if b=$(command -v bwrap 2>/dev/null); then
  printf 'bwrap-path %s\\n' "$(printf '%s' "$b" | line)"
  printf 'bwrap-version %s\\n' "$(bounded bwrap --version </dev/null 2>&1 | line)"
  if out=$(bounded bwrap --unshare-user --unshare-pid --unshare-net --die-with-parent --ro-bind / / --proc /proc --dev /dev true </dev/null 2>&1); then
    echo 'userns works'
  else
    printf 'userns refused %s\\n' "$(printf '%s' "$out" | line)"
  fi
fi
if command -v git >/dev/null 2>&1; then printf 'git %s\\n' "$(bounded git --version </dev/null 2>&1 | line)"; fi
if command -v python3 >/dev/null 2>&1; then printf 'python %s\\n' "$(bounded python3 --version </dev/null 2>&1 | line)"; fi
printf 'uid %s\\n' "$(id -u 2>/dev/null | line)"
if [ -x /usr/bin/setpriv ]; then echo 'setpriv yes'; else echo 'setpriv no'; fi
for c in ${names}; do
  if command -v "$c" >/dev/null 2>&1; then printf 'cli %s %s\\n' "$c" "$(bounded "$c" --version </dev/null 2>&1 | line)"; else printf 'cli %s\\n' "$c"; fi
done
echo '${footer}'
`;
}

const singleKeys = ['path', 'home', 'uid', 'setpriv', 'cores', 'home-free-kib', 'bwrap-path', 'bwrap-version', 'userns', 'git', 'python'] as const;
type SingleKey = (typeof singleKeys)[number];

const value = z.string().max(maxValueLength);
/** The facts as the script states them, before they mean anything. */
const factsSchema = z.object({
  path: value,
  home: value.min(1, 'the host did not say its home'),
  uid: z.string().regex(/^\d{1,10}$/, 'uid is not a number'),
  setpriv: z.enum(['yes', 'no']),
  cores: z.string().regex(/^[1-9]\d{0,5}$/, 'cores is not a number'),
  'home-free-kib': z.string().regex(/^\d{1,15}$/, 'free disk is not a number'),
  'bwrap-path': value.min(1).optional(),
  'bwrap-version': value.optional(),
  userns: z
    .string()
    .regex(/^(works|refused(?: .*)?)$/, 'userns is neither works nor refused')
    .optional(),
  git: value.optional(),
  python: value.optional(),
});

function garbled(name: string, what: string): Error {
  return sshError(
    'probe_garbled',
    `${name} answered Test host with something other than the console's report (${what}). Its login shell may print text of its own, or not be a POSIX shell: check that \`ssh ${name} sh -c true\` prints nothing, then test again.`,
  );
}

function quoteLine(line: string): string {
  const plain = line.replace(/[^\x20-\x7e]/g, '?');
  return `“${plain.length > 60 ? `${plain.slice(0, 59)}…` : plain}”`;
}

/** The host answered more than a report can be: ssh was stopped and nothing of it is read. */
export function probeTooLarge(name: string): Error {
  return sshError('probe_too_large', `${name} answered Test host with more than ${maxProbeBytes / 1024} KiB, far more than the report is: it was not read. Check what its login shell prints, then test again.`);
}

/** The host's answer, strictly, as a report; `probe_garbled` (or `probe_too_large`) otherwise. */
export function readProbeAnswer(name: string, stdout: Buffer, clis: ProviderDefinition[] = probedClis()): HostReport {
  if (stdout.length > maxProbeBytes) throw probeTooLarge(name);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(stdout);
  } catch {
    throw garbled(name, 'it is not UTF-8 text');
  }
  const lines = text.split('\n');
  // The newline that ends the last line does not begin another.
  if (lines.at(-1) === '') lines.pop();
  const start = lines.indexOf(header);
  if (start < 0 || start > maxLinesBeforeHeader) throw garbled(name, lines[0] ? `it begins ${quoteLine(lines[0])}` : 'it is empty');

  const facts: Partial<Record<SingleKey, string>> = {};
  const cliLines = new Map<string, string | null>();
  const expectedClis = new Set(clis.map((definition) => definition.executable!));
  let ended = false;
  for (const [index, line] of lines.slice(start + 1).entries()) {
    const where = `line ${start + index + 2}, ${quoteLine(line)}`;
    if (ended) {
      if (line.length > 0) throw garbled(name, `${where} follows its end`);
      continue;
    }
    if (line === footer) {
      ended = true;
      continue;
    }
    const match = /^([a-z-]+)(?: ([\x20-\x7e]*))?$/.exec(line);
    if (!match || line.length > maxValueLength + 40) throw garbled(name, where);
    const [, key, rest = ''] = match as unknown as [string, string, string | undefined];
    if (key === 'cli') {
      const cli = /^([a-z0-9-]+)(?: (.*))?$/.exec(rest);
      if (!cli || !expectedClis.has(cli[1]!) || cliLines.has(cli[1]!)) throw garbled(name, where);
      cliLines.set(cli[1]!, cli[2] ?? null);
      continue;
    }
    if (!(singleKeys as readonly string[]).includes(key) || facts[key as SingleKey] !== undefined) throw garbled(name, where);
    facts[key as SingleKey] = rest;
  }
  if (!ended) throw garbled(name, 'it stops before its end');
  const parsed = factsSchema.safeParse(facts);
  if (!parsed.success) throw garbled(name, parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  const found = parsed.data;
  const userns = found.userns ?? null;

  return {
    bubblewrap: found['bwrap-path']
      ? {
          path: found['bwrap-path'],
          version: found['bwrap-version'] || null,
          userNamespaces: userns === 'works',
          refusal: userns === null ? 'not tried' : userns === 'works' ? null : userns.replace(/^refused ?/, '') || 'bwrap failed without a message',
        }
      : null,
    git: found.git ? { version: found.git } : null,
    python: found.python ? { version: found.python } : null,
    clis: clis.map((definition) => {
      const answer = cliLines.get(definition.executable!);
      return {
        id: definition.id,
        displayName: definition.displayName,
        executable: definition.executable!,
        version: answer === undefined || answer === null ? null : (definition.parseVersion(answer) ?? (answer.trim() || 'installed; printed no version')),
        testedVersion: definition.testedVersion,
      };
    }),
    cores: Number(found.cores),
    home: found.home,
    account: { uid: Number(found.uid), setpriv: found.setpriv === 'yes' },
    homeFreeBytes: Number(found['home-free-kib']) * 1024,
    path: found.path,
  };
}
