import type { Agent, Environment } from './entities';

/**
 * The first admission rule (DESIGN.md section 3), in one place for the core that enforces it and the
 * screens that warn before it bites (New agent, the agent page).
 *
 * Every sandboxed environment (and any environment that says so) runs agents unattended: they must
 * never see the operator's own login, so they get a managed connection's key instead. An isolated
 * home is empty by design: without a managed connection the CLI has no way to sign in.
 */
export function requiresConnection(environment: Pick<Environment, 'kind' | 'requiresConnection'>, homeMode: Agent['homeMode']): boolean {
  return environmentRequiresConnection(environment) || homeMode === 'isolated';
}

/** An environment whose runs are unattended: a preconfigured home (your own login) is refused there. */
export function environmentRequiresConnection(environment: Pick<Environment, 'kind' | 'requiresConnection'>): boolean {
  return environment.requiresConnection || environment.kind === 'sandboxed';
}
