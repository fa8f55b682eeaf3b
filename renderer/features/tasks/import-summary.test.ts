import { describe, expect, it } from 'vitest';
import type { Task } from '../../../shared/entities';
import { importSummary } from './import-summary';

const task = { id: 'tsk_1' } as Task;

describe('importSummary', () => {
  it('counts what was imported, what was there already and what could not be paired', () => {
    const summary = importSummary({
      imported: [task, task],
      alreadyImported: 1,
      unpaired: [{ path: 'agent-task/m1/2_x/PLAN-x.md', reason: 'no CODE_REVIEW-*.md beside it' }],
    });
    expect(summary.headline).toBe('Imported 2 tasks');
    expect(summary.details).toEqual(['1 pair was already imported.', '1 file could not be paired:']);
  });

  it('says when there was nothing to import', () => {
    const summary = importSummary({ imported: [], alreadyImported: 0, unpaired: [] });
    expect(summary.headline).toBe('Imported 0 tasks');
    expect(summary.details[0]).toMatch(/No PLAN-\*\.md/);
  });
});
