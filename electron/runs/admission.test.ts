import { describe, expect, it } from 'vitest';
import type { Environment } from '../../shared/entities';
import type { HostReport } from '../../shared/hosts';
import type { StoredAgent } from '../ledger/agents-repository';
import { ProviderCatalog } from '../providers/catalog';
import { testCatalog } from '../testing/run-test-kit';
import { requiresConnection } from '../../shared/connection-rule';
import type { Budget, PriceTable } from '../../shared/usage';
import type { ConnectionState } from '../connections/connection-problem';
import { admissionConfigRevision, admitRun, savedAdmission, type AdmissionInput } from './admission';

const catalog = new ProviderCatalog(testCatalog() as never);
const local: Environment = { id: 'env_local', name: 'Local', kind: 'local', networkMode: 'open', requiresConnection: false, allowedHosts: [], builtIn: true, hostId: null };
const sandboxed: Environment = { id: 'env_sandboxed', name: 'Sandboxed', kind: 'sandboxed', networkMode: 'provider-only', requiresConnection: true, allowedHosts: [], builtIn: true, hostId: null };

function agent(overrides: Partial<StoredAgent> = {}): StoredAgent & { deleted: boolean } {
  return {
    id: 'agt_1',
    name: 'Coder',
    providerId: 'fixture-codex',
    model: 'model-a',
    profileId: 'default',
    capacity: 1,
    homeMode: 'isolated',
    environmentId: 'env_sandboxed',
    connectionId: null,
    executablePath: null,
    commandArgs: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    deleted: false,
    ...overrides,
  };
}

function connection(overrides: Partial<ConnectionState> = {}): ConnectionState {
  return {
    id: 'con_1',
    name: 'Team key',
    provider: 'openai',
    method: 'api_key',
    baseUrl: null,
    ownership: 'shared',
    agentScope: 'all',
    agentIds: [],
    status: 'connected',
    secretHint: 'OpenAI …abcd',
    storage: 'aes-256-gcm-key-file',
    lastTest: null,
    updating: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const admit = (input: Partial<AdmissionInput>) =>
  admitRun({ agent: agent(), environment: sandboxed, catalog, sandbox: { available: true }, connection: undefined, now: 0, ...input });

describe('the AI-connection rule', () => {
  it('applies to every sandboxed environment and any isolated home', () => {
    expect(requiresConnection(sandboxed, 'isolated')).toBe(true);
    expect(requiresConnection({ ...sandboxed, requiresConnection: false }, 'preconfigured')).toBe(true);
    expect(requiresConnection(local, 'isolated')).toBe(true);
    expect(requiresConnection(local, 'preconfigured')).toBe(false);
  });

  it('refuses without a usable connection, naming what is wrong and linking to the picker', () => {
    const cases: Array<[Partial<StoredAgent>, ConnectionState | undefined, RegExp]> = [
      [{}, undefined, /^Choose an AI connection for Coder\. It runs in the Sandboxed environment/],
      [{ connectionId: 'con_1' }, undefined, /was deleted/],
      [{ connectionId: 'con_1' }, connection({ status: 'revoked' }), /was revoked/],
      [{ connectionId: 'con_1' }, connection({ status: 'expired' }), /has expired/],
      [{ connectionId: 'con_1' }, connection({ storage: null }), /no key saved/],
      [{ connectionId: 'con_1' }, connection({ agentScope: 'chosen', agentIds: ['agt_other'] }), /not shared with this agent/],
      [{ connectionId: 'con_1' }, connection({ provider: 'anthropic' }), /for anthropic, which Fixture Codex cannot use/],
    ];
    for (const [fields, bound, message] of cases) {
      const verdict = admit({ agent: agent(fields), connection: bound });
      expect(verdict, String(message)).toMatchObject({
        admitted: false,
        deferred: false,
        failure: { code: 'configuration_incomplete', reason: 'ai_connection_required', actionUrl: '#/agents/agt_1/ai-connection' },
      });
      if (!verdict.admitted) expect(verdict.failure.message).toMatch(message);
    }
  });

  it('refuses a preconfigured home where a connection is required, pointing at the home mode', () => {
    const verdict = admit({ agent: agent({ homeMode: 'preconfigured', connectionId: 'con_1' }), connection: connection() });
    expect(verdict).toMatchObject({ admitted: false, failure: { reason: 'ai_connection_required', actionUrl: '#/agents/agt_1/home-mode' } });
  });

  it('admits with a usable connection (one that needs attention still counts), and saves it in the admission', () => {
    const verdict = admit({ agent: agent({ connectionId: 'con_1' }), connection: connection({ status: 'needs_attention', baseUrl: 'http://127.0.0.1:1/v1' }) });
    expect(verdict).toMatchObject({
      admitted: true,
      admission: { version: 3, connectionRequired: true, connectionId: 'con_1', connection: { id: 'con_1', provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' } },
    });
  });

  it('defers while the connection is being updated', () => {
    expect(admit({ agent: agent({ connectionId: 'con_1' }), connection: connection({ updating: true }) })).toMatchObject({
      admitted: false,
      deferred: true,
      retryAfterMs: expect.any(Number),
      failure: { code: 'ai_connection_busy' },
    });
  });

  it('admits where no connection is required, and delivers none there', () => {
    const verdict = admit({ agent: agent({ homeMode: 'preconfigured', environmentId: 'env_local', connectionId: 'con_1' }), environment: local, connection: connection() });
    expect(verdict).toMatchObject({ admitted: true, admission: { connectionRequired: false, connection: null } });
  });

  it('holds a resumed run to its saved admission: one admitted before the rule is not refused', () => {
    const before = JSON.stringify({
      version: 1,
      agentId: 'agt_1',
      agentName: 'Coder',
      providerId: 'fixture-codex',
      model: 'model-a',
      profileId: 'default',
      profileRevision: 'r',
      environmentId: 'env_sandboxed',
      environmentKind: 'sandboxed',
      networkMode: 'provider-only',
      homeMode: 'isolated',
      connectionId: null,
      admittedAt: '2025-01-01T00:00:00.000Z',
    });
    const saved = savedAdmission(before)!;
    expect(saved).toMatchObject({ version: 3, connectionRequired: false, connection: null, allowedHosts: [] });
    expect(admit({ saved })).toMatchObject({ admitted: true, admission: { homeMode: 'isolated', connectionRequired: false } });
    expect(admit({ saved: { ...saved, connectionRequired: true } })).toMatchObject({ admitted: false, failure: { reason: 'ai_connection_required' } });
  });

  it('records the environment’s network rules at admission, and a resumed run keeps them whatever the environment says now', () => {
    const builds: Environment = { ...sandboxed, id: 'env_builds', name: 'Builds', allowedHosts: ['registry.npmjs.org', '127.0.0.1:4873'] };
    const first = admit({ agent: agent({ connectionId: 'con_1', environmentId: 'env_builds' }), environment: builds, connection: connection() });
    expect(first).toMatchObject({ admitted: true, admission: { version: 3, networkMode: 'provider-only', allowedHosts: ['registry.npmjs.org', '127.0.0.1:4873'] } });
    const saved = savedAdmission(JSON.stringify((first as { admission: unknown }).admission))!;
    const changed: Environment = { ...builds, networkMode: 'none', allowedHosts: [] };
    expect(admit({ agent: agent({ connectionId: 'con_1', environmentId: 'env_builds' }), environment: changed, connection: connection(), saved })).toMatchObject({
      admitted: true,
      admission: { networkMode: 'provider-only', allowedHosts: ['registry.npmjs.org', '127.0.0.1:4873'] },
    });
    // A new run gets the environment as it is now.
    expect(admit({ agent: agent({ connectionId: 'con_1', environmentId: 'env_builds' }), environment: changed, connection: connection() })).toMatchObject({
      admission: { networkMode: 'none', allowedHosts: [] },
    });
    // Saved before allowed hosts existed: its proxy let through the model alone, and still does.
    const { allowedHosts: _hosts, ...v2 } = saved;
    expect(savedAdmission(JSON.stringify({ ...v2, version: 2 }))).toMatchObject({ version: 3, allowedHosts: [] });
  });

  it('gives a configuration revision that changes with what admission looks at', () => {
    const base = { agent: agent(), environment: sandboxed, catalog, connection: undefined, sandbox: { available: true } };
    const revision = admissionConfigRevision(base);
    expect(admissionConfigRevision(base)).toBe(revision);
    expect(admissionConfigRevision({ ...base, agent: agent({ connectionId: 'con_1' }), connection: connection() })).not.toBe(revision);
    expect(admissionConfigRevision({ ...base, agent: agent({ homeMode: 'preconfigured' }) })).not.toBe(revision);
    const bound = { ...base, agent: agent({ connectionId: 'con_1' }), connection: connection() };
    expect(admissionConfigRevision({ ...bound, connection: connection({ status: 'revoked' }) })).not.toBe(admissionConfigRevision(bound));
    expect(admissionConfigRevision({ ...base, sandbox: { available: false } })).not.toBe(revision);
  });
});

describe('the OS sandbox rule', () => {
  it('refuses a sandboxed run, with what to install, when the sandbox the console probed is unavailable', () => {
    const verdict = admit({
      agent: agent({ connectionId: 'con_1' }),
      connection: connection(),
      sandbox: { available: false, reason: 'bwrap: not found', hint: 'Install bubblewrap (apt install bubblewrap).' },
    });
    expect(verdict).toMatchObject({
      admitted: false,
      failure: { code: 'sandbox_unavailable', actionUrl: '#/agents/agt_1', message: expect.stringContaining('Install bubblewrap') },
    });
  });

  it('does not hold a local run to it', () => {
    const verdict = admit({
      agent: agent({ environmentId: 'env_local', homeMode: 'preconfigured' }),
      environment: local,
      sandbox: { available: false, reason: 'bwrap: not found' },
    });
    expect(verdict.admitted).toBe(true);
  });
});

describe('the budget rule', () => {
  const spent = (overrides: Partial<Budget> = {}): Budget => ({
    id: 'bgt_1',
    scope: 'agent',
    targetId: 'agt_1',
    targetName: 'Coder',
    measure: 'tokens',
    period: 'day',
    limit: 1000,
    spent: 1801,
    unpriced: { tokens: 0, models: [] },
    periodStart: '2026-12-02T00:00:00.000Z',
    resetsAt: '2026-12-03T00:00:00.000Z',
    exhausted: true,
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
    ...overrides,
  });
  const bound = { agent: agent({ connectionId: 'con_1' }), connection: connection() };

  it('comes after every other rule: a run refused for its connection is refused for that, not for its budget', () => {
    const verdict = admit({ budgets: [spent()] });
    expect(verdict).toMatchObject({ admitted: false, failure: { reason: 'ai_connection_required' } });
    expect(admit({ ...bound, budgets: [spent()] })).toMatchObject({ admitted: false, failure: { code: 'configuration_incomplete', reason: 'budget_exhausted', actionUrl: '#/settings/budgets/bgt_1' } });
    expect(admit({ ...bound, budgets: [spent({ exhausted: false, spent: 10 })] })).toMatchObject({ admitted: true });
  });

  it('holds the run to its delivered connection’s budget, not to one whose key it is not given', () => {
    const onConnection = spent({ scope: 'connection', targetId: 'con_1', targetName: 'Team key' });
    expect(admit({ ...bound, budgets: [onConnection] })).toMatchObject({ admitted: false, failure: { reason: 'budget_exhausted' } });
    // A local, preconfigured agent bound to it uses the operator's login: its key is not delivered.
    expect(admit({ ...bound, agent: agent({ connectionId: 'con_1', homeMode: 'preconfigured', environmentId: 'env_local' }), environment: local, budgets: [onConnection] })).toMatchObject({
      admitted: true,
      admission: { connection: null },
    });
  });

  it('leaves a resumed run its saved admission, and is part of the revision verification waits on', () => {
    const first = admit(bound);
    if (!first.admitted) throw new Error('expected an admission');
    expect(admit({ ...bound, saved: first.admission, budgets: [spent()] })).toMatchObject({ admitted: true });
    const revision = (budgets: Budget[]) => admissionConfigRevision({ agent: bound.agent, connection: bound.connection, environment: sandboxed, catalog, sandbox: null, budgets });
    expect(revision([])).toBe(admissionConfigRevision({ agent: bound.agent, connection: bound.connection, environment: sandboxed, catalog, sandbox: null }));
    expect(revision([spent()])).not.toBe(revision([]));
    expect(revision([spent()])).not.toBe(revision([spent({ exhausted: false })]));
    expect(revision([spent()])).not.toBe(revision([spent({ periodStart: '2026-12-03T00:00:00.000Z' })]));
    // What it spent grows with every attempt; the verdict does not change with it.
    expect(revision([spent()])).toBe(revision([spent({ spent: 2500 })]));
  });
});

describe('the budget rule for money the price table cannot count', () => {
  const bound = { agent: agent({ connectionId: 'con_1' }), connection: connection() };
  const money: Budget = {
    id: 'bgt_m',
    scope: 'connection',
    targetId: 'con_1',
    targetName: 'Team key',
    measure: 'cost',
    period: 'month',
    limit: 25,
    spent: 0,
    unpriced: { tokens: 0, models: [] },
    periodStart: '2026-12-01T00:00:00.000Z',
    resetsAt: '2027-01-01T00:00:00.000Z',
    exhausted: false,
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
  };
  const unpricedTable: PriceTable = { currency: 'USD', entries: [{ provider: 'openai', model: 'gpt-5', inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: 1 }] };
  const pricedTable: PriceTable = { ...unpricedTable, entries: [...unpricedTable.entries, { provider: 'openai', model: 'model-*', inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: 1 }] };

  it('refuses a run whose model has no price under a money budget, linking to that model’s price; a priced one is admitted', () => {
    expect(admit({ ...bound, budgets: [money], prices: unpricedTable })).toMatchObject({
      admitted: false,
      failure: { code: 'configuration_incomplete', reason: 'budget_unpriced', actionUrl: '#/settings/prices?provider=openai&model=model-a' },
    });
    expect(admit({ ...bound, budgets: [money], prices: pricedTable })).toMatchObject({ admitted: true });
    // A subscription pays for its tokens: a money budget counts none of them by design, priced or not.
    expect(admit({ ...bound, connection: connection({ method: 'subscription_token' }), budgets: [money], prices: unpricedTable })).toMatchObject({ admitted: true });
    // A token budget counts tokens, whatever their price.
    expect(admit({ ...bound, budgets: [{ ...money, measure: 'tokens', limit: 1000 }], prices: unpricedTable })).toMatchObject({ admitted: true });
  });

  it('refuses while the budget holds tokens with no price, and verification looks again when a price is set', () => {
    const uncounted = { ...money, unpriced: { tokens: 1801, models: [{ priceProvider: 'openai', model: 'gpt-9' }] } };
    expect(admit({ ...bound, budgets: [uncounted], prices: pricedTable })).toMatchObject({
      admitted: false,
      failure: { reason: 'budget_unpriced', actionUrl: '#/settings/prices?provider=openai&model=gpt-9' },
    });
    const revision = (budgets: Budget[], prices: PriceTable) => admissionConfigRevision({ ...bound, environment: sandboxed, catalog, sandbox: null, budgets, prices });
    expect(revision([uncounted], pricedTable)).not.toBe(revision([money], pricedTable));
    expect(revision([money], unpricedTable)).not.toBe(revision([money], pricedTable));
  });
});

describe('the disk rule', () => {
  const mib = 1024 * 1024;
  const disk = (freeMiB: number | null) => ({ dataDir: '/data', freeBytes: freeMiB === null ? null : freeMiB * mib, minFreeBytes: 256 * mib });

  it('refuses a run while free space is under the threshold, naming the data directory and linking to Clean up', () => {
    const verdict = admit({ agent: agent({ environmentId: 'env_local', homeMode: 'preconfigured' }), environment: local, disk: disk(12) });
    expect(verdict).toMatchObject({ admitted: false, deferred: false, failure: { code: 'disk_full', reason: 'disk_full', actionUrl: '#/cleanup' } });
    if (!verdict.admitted) expect(verdict.failure.message).toBe(
      'The disk of the data directory /data is full: 12 MiB free, and a run needs at least 256 MiB. Nothing was started. Free space (Clean up removes finished runs’ files, and deleting a run gives the room its output took in the ledger back to the disk), then run it again.',
    );
  });

  it('admits with enough room, when the disk cannot be asked, and for a Test (no disk given)', () => {
    const input = { agent: agent({ environmentId: 'env_local', homeMode: 'preconfigured' }), environment: local };
    expect(admit({ ...input, disk: disk(300) }).admitted).toBe(true);
    expect(admit({ ...input, disk: disk(null) }).admitted).toBe(true);
    expect(admit(input).admitted).toBe(true);
  });
});

describe('a run on an SSH host', () => {
  const onHost: Environment = { ...sandboxed, id: 'env_box', name: 'Build box', networkMode: 'none', hostId: 'hst_1' };
  const report: HostReport = {
    bubblewrap: { path: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0', userNamespaces: true, refusal: null },
    git: { version: 'git version 2.39.5' },
    python: { version: 'Python 3.11.2' },
    clis: [{ id: 'codex', displayName: 'Codex CLI', executable: 'codex', version: null, testedVersion: null }],
    cores: 8,
    home: '/home/remote',
    homeFreeBytes: 1e9,
    path: '/usr/bin:/bin',
  };
  const destination = { user: 'remote', hostname: 'box', port: 22, proxyJump: null };
  const host = (changes: Partial<HostReport> = {}) => ({ id: 'hst_1', name: 'build-box', lastTest: { outcome: 'ready' as const, testedAt: 1, destination, report: { ...report, ...changes } } });
  const usable = connection({ id: 'con_1' });
  const onBox = (input: Partial<AdmissionInput>) => admit({ environment: onHost, agent: agent({ connectionId: 'con_1', environmentId: 'env_box' }), connection: usable, ...input });

  it('is admitted when the host’s last test has what it needs, and the admission names the host (a resumed run goes back to it)', () => {
    const verdict = onBox({ host: host() });
    expect(verdict).toMatchObject({ admitted: true, admission: { host: { id: 'hst_1', name: 'build-box' }, networkMode: 'none' } });
    // A root account with setpriv (its sandbox runs as nobody), and one without where nothing is sandboxed.
    expect(onBox({ host: host({ account: { uid: 0, setpriv: true } }) }).admitted).toBe(true);
    expect(onBox({ host: host({ account: { uid: 0, setpriv: false } }), environment: { ...onHost, kind: 'local' } }).admitted).toBe(true);
  });

  it('is admitted in every network mode, provider-only too (its traffic leaves from this machine through the run’s tunnel), with the allowed hosts recorded', () => {
    for (const networkMode of ['none', 'open', 'provider-only'] as const) {
      const verdict = onBox({ host: host(), environment: { ...onHost, networkMode, allowedHosts: ['registry.npmjs.org'] } });
      expect(verdict, networkMode).toMatchObject({ admitted: true, admission: { host: { id: 'hst_1' }, networkMode, allowedHosts: ['registry.npmjs.org'] } });
    }
  });

  it('is refused up front, with one reason and what to fix, when the host lacks what it needs', () => {
    const cases: Array<[Partial<AdmissionInput>, RegExp]> = [
      [{ host: undefined }, /names an SSH host that is no longer in Settings → Hosts/],
      [{ host: { id: 'hst_1', name: 'build-box', lastTest: null } }, /runs on build-box, which has not passed Test host/],
      [{ host: host({ python: null }) }, /found no python3/],
      [{ host: host({ bubblewrap: null }) }, /found no bubblewrap on build-box/],
      [{ host: host({ bubblewrap: { ...report.bubblewrap!, userNamespaces: false, refusal: 'setting up uid map: Permission denied' } }) }, /cannot make user namespaces \(setting up uid map: Permission denied/],
      [{ host: host({ account: { uid: 0, setpriv: false } }) }, /build-box is reached as root, whose sandboxed runs start as an unprivileged user through \/usr\/bin\/setpriv, which Test host did not find there/],
      [{ host: host(), agent: agent({ connectionId: 'con_1', environmentId: 'env_box', providerId: 'fixture-codex' }), catalog: new ProviderCatalog({ ...testCatalog(), providers: testCatalog().providers.map((p) => (p.id === 'fixture-codex' ? { ...p, executable: undefined } : p)) } as never) }, /did not find Codex CLI \(codex\)/],
    ];
    for (const [input, message] of cases) {
      expect(onBox(input), String(message)).toMatchObject({
        admitted: false,
        deferred: false,
        failure: { code: 'configuration_incomplete', reason: 'host_unready', message: expect.stringMatching(message) },
      });
    }
  });

  it('is refused up front for a project that is not a git repository, saying so and what to do, with a link to the agent', () => {
    const plain = { name: 'Notes', path: '/home/me/notes', isGitRepo: false };
    expect(onBox({ host: host(), project: plain })).toMatchObject({
      admitted: false,
      deferred: false,
      failure: {
        code: 'configuration_incomplete',
        reason: 'host_unready',
        message: expect.stringMatching(/runs on SSH hosts take their code there and back through git, but the project “Notes” \(\/home\/me\/notes\) is not a git repository\. Nothing was started\. Give the agent an environment on this machine/),
        actionUrl: '#/agents/agt_1',
      },
    });
    // A git project is admitted there, and a plain folder still runs on this machine; an agent's Test (no project) is not asked about one.
    expect(onBox({ host: host(), project: { ...plain, isGitRepo: true } }).admitted).toBe(true);
    expect(onBox({ host: host() }).admitted).toBe(true);
    expect(admit({ agent: agent({ environmentId: 'env_local', homeMode: 'preconfigured' }), environment: local, project: plain }).admitted).toBe(true);
  });
});
