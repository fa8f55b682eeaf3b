import type { LedgerDb } from '../database-handle';
import { initialSchema } from './001-initial';
import { noticeDedupe } from './002-notice-dedupe';
import { launchDetails } from './003-launch-details';
import { runArchive } from './004-run-archive';
import { connectionsAndNoticeRuns } from './005-connections-and-notice-runs';
import { noticeResolution } from './006-notice-resolution';
import { environments } from './007-environments';
import { allowSettingUpStatus, projectSetup } from './008-project-setup';
import { landing } from './009-landing';
import { landingIntent } from './010-landing-intent';
import { usage } from './011-usage';
import { attemptCause } from './012-attempt-cause';
import { searchIndex } from './013-search-index';
import { hosts } from './014-hosts';
import { runHosts } from './017-run-hosts';
import { searchIndexMerging } from './015-search-index-merging';
import { heldNotifications } from './016-held-notifications';
import { hostWorkUnfetched } from './018-host-work-unfetched';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL text alone cannot say (rebuilding a table from its stored definition), after `sql`. */
  run?: (db: LedgerDb) => void;
  /**
   * The migration rebuilds a table others reference: foreign keys are off while it runs (a DROP would
   * otherwise cascade into every child table) and checked before it commits.
   */
  rebuildsTables?: boolean;
}

/**
 * In order; `version` is what `PRAGMA user_version` holds once the migration has run. Append only:
 * a ledger at version N never runs a migration numbered N or below that is added later.
 */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'initial', sql: initialSchema },
  { version: 2, name: 'notice-dedupe', sql: noticeDedupe },
  { version: 3, name: 'launch-details', sql: launchDetails },
  { version: 4, name: 'run-archive', sql: runArchive },
  { version: 5, name: 'connections-and-notice-runs', sql: connectionsAndNoticeRuns },
  { version: 6, name: 'notice-resolution', sql: noticeResolution },
  { version: 7, name: 'environments', sql: environments },
  { version: 8, name: 'project-setup', sql: projectSetup, run: allowSettingUpStatus, rebuildsTables: true },
  { version: 9, name: 'landing', sql: landing },
  { version: 10, name: 'landing-intent', sql: landingIntent },
  { version: 11, name: 'usage', sql: usage },
  { version: 12, name: 'attempt-cause', sql: attemptCause },
  { version: 13, name: 'search-index', sql: searchIndex },
  { version: 14, name: 'hosts', sql: hosts },
  { version: 15, name: 'search-index-merging', sql: '', run: searchIndexMerging },
  { version: 16, name: 'held-notifications', sql: heldNotifications },
  { version: 17, name: 'run-hosts', sql: runHosts },
  { version: 18, name: 'host-work-unfetched', sql: hostWorkUnfetched },
];
