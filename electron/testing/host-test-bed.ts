import { openRunTestBed, type RunTestBed } from './run-test-kit';
import type { SshTestServer } from './ssh-test-server';

/** A console on the test sshd: the server's ssh config and agent, the host added and tested, a sandboxed environment on it. */
export interface HostTestBed {
  bed: RunTestBed;
  hostId: string;
  environmentId: string;
  /** A fixture agent in that environment, with an isolated home and a managed AI connection. */
  agent: (args: string[], extra?: Record<string, unknown>) => ReturnType<RunTestBed['createAgent']>;
}

export async function openHostTestBed(server: SshTestServer, options: { networkMode?: 'none' | 'open' } = {}): Promise<HostTestBed> {
  const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
  const host = await bed.call('addHost', { name: server.alias });
  const test = await bed.call('testHost', { hostId: host.id });
  if (test.outcome !== 'ready') throw new Error(`the test host is not ready: ${test.outcome}`);
  const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', networkMode: options.networkMode ?? 'none', hostId: host.id });
  const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: 'sk-host-test-KEY-0123456789abcdef', ownership: 'shared', agentScope: 'all' });
  return {
    bed,
    hostId: host.id,
    environmentId: environment.id,
    agent: async (args, extra = {}) => {
      const created = await bed.createAgent(args, { environmentId: environment.id, homeMode: 'isolated', ...extra });
      await bed.call('setAgentConnection', { agentId: created.id, connectionId: connection.id });
      return created;
    },
  };
}
