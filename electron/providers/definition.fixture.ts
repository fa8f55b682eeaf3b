import { describe, expect, it } from 'vitest';
import type { ProviderDefinition } from './provider-definition';

/** Test helper for a CLI's test file: where its home is, and the version line its `--version` prints. */
export function describeHomeAndVersion(
  definition: ProviderDefinition,
  expected: { variable: string; folder: string; versionOutput: string; version: string },
): void {
  describe(`${definition.id} home and version`, () => {
    it(`keeps its home in ${expected.variable}, a folder of the task cache`, () => {
      expect(definition.home).toMatchObject({ variable: expected.variable, folder: expected.folder });
    });

    it('reads the version its `--version` prints', () => {
      expect(definition.parseVersion(expected.versionOutput)).toBe(expected.version);
      expect(definition.parseVersion('no version here')).toBeNull();
    });
  });
}
