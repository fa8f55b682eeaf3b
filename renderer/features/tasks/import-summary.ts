import type { ChannelOutput } from '../../../shared/contract';
import { pluralize } from '../../ui/format';

export type ImportResult = ChannelOutput<'importTasks'>;

/** The headline and detail lines of an import from agent-task/, in words. */
export function importSummary(result: ImportResult): { headline: string; details: string[] } {
  const headline = `Imported ${pluralize(result.imported.length, 'task')}`;
  const details: string[] = [];
  if (result.alreadyImported > 0) {
    details.push(`${pluralize(result.alreadyImported, 'pair')} ${result.alreadyImported === 1 ? 'was' : 'were'} already imported.`);
  }
  if (result.unpaired.length > 0) {
    details.push(`${pluralize(result.unpaired.length, 'file')} could not be paired:`);
  }
  if (result.imported.length === 0 && result.alreadyImported === 0 && result.unpaired.length === 0) {
    details.push('No PLAN-*.md and CODE_REVIEW-*.md pairs were found under agent-task/ in this project.');
  }
  return { headline, details };
}
