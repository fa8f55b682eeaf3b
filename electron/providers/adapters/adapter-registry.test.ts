import { describe, expect, it } from 'vitest';
import { adapterFor } from './adapter-registry';
import { catalog, launchRequest } from './launch-request.fixture';

describe('adapterFor', () => {
  it('builds a launch for every provider and profile in the shipped catalog', () => {
    for (const provider of catalog.listProviders()) {
      const adapter = adapterFor(provider);
      expect(adapter.provider.id).toBe(provider.id);
      expect(adapter.eventFormat).toBe(provider.eventFormat);
      for (const catalogProfile of provider.profiles) {
        // A command profile without an executable runs the program its agent names.
        const profile = catalogProfile.executable || provider.adapter !== 'command' ? catalogProfile : { ...catalogProfile, executable: '/usr/local/bin/agent' };
        const launch = adapter.buildLaunch(launchRequest(profile, provider.models[0]?.id ?? ''));
        expect(launch.executable).not.toBe('');
        expect(launch.cwd).toBe('/data/tasks/run_1/view');
        // The provider home is always inside the task's cache, never the operator's own.
        if (provider.homeVariable) expect(launch.env[provider.homeVariable]?.startsWith('/data/tasks/run_1/cache/')).toBe(true);
        // The prompt reaches the CLI intact (Pi and Gemini carry it differently).
        expect(launch.args.some((arg) => arg.includes('Make test X deterministic.'))).toBe(true);
      }
    }
  });
});
