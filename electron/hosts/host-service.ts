import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import type { Host, HostTest } from '../../shared/hosts';
import { actionRoute } from '../../shared/routes';
import { parseSshHostName } from '../../shared/ssh-host-name';
import type { EventHub } from '../events/event-hub';
import type { PresentedHostKey, StoredHost } from '../ledger/hosts-repository';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import { ConsoleKnownHosts, fetchPresentedKey, hostKeyRefusal, knownHostsFileKey } from './host-key-check';
import { maxProbeBytes, probeScript, probeTooLarge, readProbeAnswer } from './host-probe';
import { knownHostsFilesOption, runSsh, sshBaseArgs, sshEnvironment, type SshSettings } from './ssh-command';
import { resolveDestination } from './ssh-destination';
import { sshFailure } from './ssh-failure';
import type { HostConnection } from './remote-run/host-connection';
import { diskOnHost, gitStoresOnHost, remoteHostLayout, removeGitStoreFromHost } from './remote-run/remote-supervisor';
import { remoteStoreFor } from './remote-git/send-base-revision';
import { withStoreTurn } from './remote-git/store-turns';

export interface HostServiceOptions {
  ledger: Ledger;
  events: EventHub;
  log: Logger;
  dataDir: string;
  /** The operator's environment: ssh gets its PATH, HOME and SSH_AUTH_SOCK (ssh-command.ts lists what). */
  operatorEnv: NodeJS.ProcessEnv;
  /** `ssh -F`: a config file other than ~/.ssh/config; null for ssh's own. */
  sshConfigFile: string | null;
  now?: () => number;
  /** How long one Test host may take in all (connecting, the probe, the CLIs' --version). */
  testTimeoutMs?: number;
}

/** What the console takes on a host (HostService.diskUse): its runs' folders and its projects' git stores. */
export interface HostDiskUse {
  hostId: string;
  name: string;
  runs: number;
  /** Runs and stores together; null when the host did not answer. */
  bytes: number | null;
  gitStores: number;
  gitStoreBytes: number | null;
  error: string | null;
  measuredAt: number;
}

/** What HostService.pruneGitStores removed on a host (project ids), or why it could not ask it. */
export interface PrunedGitStores {
  hostId: string;
  name: string;
  removed: string[];
  freedBytes: number;
  error: string | null;
}

/** Where the console keeps the host keys the operator trusted from it. */
export function consoleKnownHostsFile(dataDir: string): string {
  return path.join(dataDir, 'ssh', 'known_hosts');
}

/**
 * Settings → Hosts (issue 28): SSH hosts added by the name ssh knows, tested with the system ssh, and
 * their host keys trusted only by the operator, after seeing the fingerprint. Runs do not execute on a
 * host yet; this is where one is added and known to work.
 */
export class HostService {
  private readonly settings: SshSettings;
  private readonly knownHosts: ConsoleKnownHosts;
  /** One test per host at a time: a second click joins the one under way. */
  private readonly testing = new Map<string, Promise<HostTest>>();
  private readonly now: () => number;
  private readonly testTimeoutMs: number;

  constructor(private readonly options: HostServiceOptions) {
    this.knownHosts = new ConsoleKnownHosts(consoleKnownHostsFile(options.dataDir));
    this.settings = {
      program: 'ssh',
      configFile: options.sshConfigFile,
      env: sshEnvironment(options.operatorEnv),
      consoleKnownHosts: this.knownHosts.file,
      connectTimeoutSeconds: 10,
    };
    this.now = options.now ?? Date.now;
    this.testTimeoutMs = options.testTimeoutMs ?? 90_000;
  }

  list(): Host[] {
    return this.options.ledger.hosts.list().map((host) => this.publicHost(host));
  }

  get(hostId: string): Host {
    return this.publicHost(this.requireHost(hostId));
  }

  /** Adds a host once ssh resolves its name (`ssh -G`, which reads the config and connects to nothing). */
  async add(name: string): Promise<Host> {
    const parsed = parseSshHostName(name);
    if (!parsed.ok) throw new OperatorError({ code: 'invalid_request', reason: 'invalid_host_name', message: parsed.problem });
    this.requireUniqueName(parsed.name);
    await resolveDestination(this.settings, parsed.name);
    // Asked again: another add of the same name may have finished while ssh -G ran.
    this.requireUniqueName(parsed.name);
    const id = newId('hst');
    this.options.ledger.hosts.insert(id, parsed.name, this.now());
    this.options.log.info('host added', { hostId: id, name: parsed.name });
    this.changed();
    return this.get(id);
  }

  remove(hostId: string): { hostId: string } {
    const host = this.requireHost(hostId);
    const environmentIds = this.options.ledger.hosts.environmentIds(hostId);
    if (environmentIds.length > 0) {
      const names = environmentIds.map((id) => this.options.ledger.environments.get(id)?.name ?? id);
      throw new OperatorError({
        code: 'conflict',
        reason: 'host_in_use',
        message: `${host.name} is the host of the environment${names.length === 1 ? '' : 's'} ${names.join(', ')}. Choose another host for ${
          names.length === 1 ? 'it' : 'them'
        } (or none) in Settings → Environments first, then remove it.`,
        actionUrl: actionRoute({ kind: 'settings-environment', environmentId: environmentIds[0]! }),
      });
    }
    this.options.ledger.hosts.delete(hostId);
    this.options.log.info('host removed', { hostId, name: host.name });
    this.changed();
    return { hostId };
  }

  test(hostId: string): Promise<HostTest> {
    const running = this.testing.get(hostId);
    if (running) return running;
    const test = this.runTest(this.requireHost(hostId)).finally(() => this.testing.delete(hostId));
    this.testing.set(hostId, test);
    return test;
  }

  /**
   * Writes the key the host presented at its last test into the console's known_hosts, when it is the
   * one the operator compared (`fingerprint`). A changed key is never written: there is nothing to
   * trust until the operator removed the old one themselves.
   */
  async trust(hostId: string, fingerprint: string): Promise<Host> {
    const host = this.requireHost(hostId);
    // The key the last test was presented, kept in the ledger: the operator may compare fingerprints for days.
    const presented = this.options.ledger.hosts.presentedKey(hostId);
    if (!presented || presented.key.fingerprint !== fingerprint) {
      throw new OperatorError({
        code: 'conflict',
        reason: 'host_key_not_presented',
        message: `Nothing was trusted: ${fingerprint} is not the key ${host.name} presented at its last test. Test the host again and compare the fingerprint it shows before you trust it.`,
        actionUrl: actionRoute({ kind: 'settings-hosts' }),
      });
    }
    await this.knownHosts.append(presented.entries);
    this.options.ledger.hosts.forgetPresentedKey(hostId);
    this.options.log.info('host key trusted', { hostId, name: host.name, type: presented.key.type, fingerprint: presented.key.fingerprint, file: this.knownHosts.file });
    this.changed();
    return this.get(hostId);
  }

  /**
   * How a run reaches the host: the options Test host connects with (the host key checked strictly
   * against the operator's known_hosts files and the console's), and what the last test found. A host
   * that was never tested ready has no connection: the run was refused before it got here.
   */
  async connection(hostId: string): Promise<HostConnection> {
    const host = this.requireHost(hostId);
    const test = host.lastTest;
    if (test?.outcome !== 'ready') {
      throw new OperatorError({
        code: 'configuration_incomplete',
        reason: 'host_not_ready',
        message: `${host.name} has not passed Test host, so no run starts there. Test it in Settings → Hosts, then run the task again.`,
        actionUrl: actionRoute({ kind: 'settings-hosts' }),
      });
    }
    const { userKnownHostsFiles } = await resolveDestination(this.settings, host.name);
    return {
      hostId: host.id,
      name: host.name,
      settings: this.settings,
      options: [...sshBaseArgs(this.settings), '-o', 'StrictHostKeyChecking=yes', '-o', knownHostsFilesOption([...userKnownHostsFiles, this.knownHosts.file])],
      report: test.report,
    };
  }

  /**
   * What the console takes on each tested host, asked over ssh: its runs' folders under
   * ~/.operator-console/runs, and its projects' git stores there (`bytes` is both together).
   */
  async diskUse(): Promise<HostDiskUse[]> {
    const answers: HostDiskUse[] = [];
    for (const host of this.readyHosts()) {
      try {
        const connection = await this.connection(host.id);
        const layout = remoteHostLayout(connection);
        const runs = Object.values(await diskOnHost(connection, layout));
        const stores = Object.values(await gitStoresOnHost(connection, layout));
        const storeBytes = sum(stores);
        answers.push({ hostId: host.id, name: host.name, runs: runs.length, bytes: sum(runs) + storeBytes, gitStores: stores.length, gitStoreBytes: storeBytes, error: null, measuredAt: this.now() });
      } catch (error) {
        answers.push({ hostId: host.id, name: host.name, runs: 0, bytes: null, gitStores: 0, gitStoreBytes: null, error: errorText(error), measuredAt: this.now() });
      }
    }
    return answers;
  }

  /**
   * Removes the projects' git stores on the tested hosts that are this console's (`ours`) and that no
   * run needs any more: `needed(hostId, projectId)` is asked for each such store the host lists, and
   * again in the store's turn just before it goes (store-turns.ts), so a run that started meanwhile
   * keeps it. A host that does not answer is said in its `error` and left as it is.
   */
  async pruneGitStores(plan: { ours: (hostId: string) => ReadonlySet<string>; needed: (hostId: string, projectId: string) => boolean }): Promise<PrunedGitStores[]> {
    const { needed } = plan;
    const answers: PrunedGitStores[] = [];
    for (const host of this.readyHosts()) {
      const ours = plan.ours(host.id);
      if (ours.size === 0) continue;
      const answer: PrunedGitStores = { hostId: host.id, name: host.name, removed: [], freedBytes: 0, error: null };
      try {
        const connection = await this.connection(host.id);
        const layout = remoteHostLayout(connection);
        for (const [projectId, bytes] of Object.entries(await gitStoresOnHost(connection, layout))) {
          if (!ours.has(projectId) || needed(host.id, projectId)) continue;
          const gone = await withStoreTurn(connection.name, remoteStoreFor(layout.consoleRoot, projectId), async () => {
            if (needed(host.id, projectId)) return false;
            await removeGitStoreFromHost(connection, layout, projectId);
            return true;
          });
          if (!gone) continue;
          answer.removed.push(projectId);
          answer.freedBytes += bytes;
          this.options.log.info('a project’s git store removed from its host: no run there needs it', { hostId: host.id, host: host.name, projectId, bytes });
        }
      } catch (error) {
        answer.error = errorText(error);
        this.options.log.warn('could not remove unused git stores on a host', { hostId: host.id, host: host.name, error: answer.error });
      }
      answers.push(answer);
    }
    return answers;
  }

  private readyHosts(): StoredHost[] {
    return this.options.ledger.hosts.list().filter((host) => host.lastTest?.outcome === 'ready');
  }

  private async runTest(host: StoredHost): Promise<HostTest> {
    const parsed = parseSshHostName(host.name);
    if (!parsed.ok) throw new OperatorError({ code: 'invalid_request', reason: 'invalid_host_name', message: parsed.problem });
    const name = parsed.name;
    const { destination, userKnownHostsFiles } = await resolveDestination(this.settings, name);
    const knownHostsFiles = [...userKnownHostsFiles, this.knownHosts.file];
    const result = await runSsh(this.settings, {
      args: [...sshBaseArgs(this.settings), '-o', 'StrictHostKeyChecking=yes', '-o', knownHostsFilesOption(knownHostsFiles), '--', name, 'sh -s'],
      stdin: Buffer.from(probeScript()),
      timeoutMs: this.testTimeoutMs,
      maxOutputBytes: maxProbeBytes,
    });
    const testedAt = this.now();
    if (result.truncated) throw probeTooLarge(name);
    let test: HostTest;
    let presented: PresentedHostKey | null = null;
    if (result.exitCode === 0 && !result.timedOut) {
      test = { outcome: 'ready', testedAt, destination, report: readProbeAnswer(name, result.stdout) };
    } else {
      const refusal = result.timedOut ? null : hostKeyRefusal(result.stderr);
      if (!refusal) throw sshFailure(name, result, { during: 'connect', timeoutMs: this.testTimeoutMs });
      if (refusal.kind === 'unknown') {
        presented = await fetchPresentedKey(this.settings, name);
        test = { outcome: 'host_key_unknown', testedAt, destination, presented: presented.key };
      } else {
        // Read only from a file ssh was given: the line ssh names is looked up, never any path its output could name.
        const onFile = refusal.onFile && knownHostsFiles.includes(refusal.onFile.file) ? await knownHostsFileKey(refusal.onFile.file, refusal.onFile.line) : null;
        test = {
          outcome: 'host_key_changed',
          testedAt,
          destination,
          known: onFile && refusal.onFile ? { ...onFile, ...refusal.onFile } : null,
          presented: refusal.presented,
        };
      }
    }
    this.options.ledger.hosts.recordTest(host.id, test, presented);
    this.options.log.info('host tested', { hostId: host.id, name, outcome: test.outcome, hostname: destination.hostname, port: destination.port });
    this.changed();
    return test;
  }

  private requireHost(hostId: string): StoredHost {
    const host = this.options.ledger.hosts.get(hostId);
    if (!host) {
      throw new OperatorError({ code: 'not_found', message: 'That host is no longer in the console.', actionUrl: actionRoute({ kind: 'settings-hosts' }) });
    }
    return host;
  }

  private requireUniqueName(name: string): void {
    if (this.options.ledger.hosts.findByName(name)) {
      throw new OperatorError({ code: 'conflict', reason: 'host_exists', message: `${name} is already in Settings → Hosts. Test it there.` });
    }
  }

  private publicHost(host: StoredHost): Host {
    return { ...host, environmentIds: this.options.ledger.hosts.environmentIds(host.id) };
  }

  private changed(): void {
    this.options.events.emit('hostsChanged', {});
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
