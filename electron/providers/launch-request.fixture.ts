import type { LaunchProfile } from './catalog';
import { loadProviderCatalog } from './catalog';
import type { LaunchRequest, LaunchSpec } from './launch';

/** Test helper: a launch request for a task root under /data/tasks/run_1. */
export const taskRoot = {
  root: '/data/tasks/run_1',
  view: '/data/tasks/run_1/view',
  tmp: '/data/tasks/run_1/tmp',
  cache: '/data/tasks/run_1/cache',
  home: '/data/tasks/run_1/home',
};

export const catalog = loadProviderCatalog();

export function launchRequest(profile: LaunchProfile, model: string, overrides: Partial<LaunchRequest> = {}): LaunchRequest {
  return {
    task: { title: 'Fix the flaky test', prompt: 'Make test X deterministic.', planPath: null, reviewPath: null },
    agent: { model, profile },
    taskRoot,
    prompt: 'Fix the flaky test\n\nMake test X deterministic.',
    newSessionId: () => '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
    ...overrides,
  };
}

/** The launch the shipped catalog's entry builds with its definition. */
export function launchFor(providerId: string) {
  const provider = catalog.getProvider(providerId);
  return { provider, build: (request: LaunchRequest): LaunchSpec => provider.definition.launch.build(provider, request) };
}
