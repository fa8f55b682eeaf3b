import { z } from 'zod';
import { channel, noInput } from './channel';

/** The console itself: what it runs on, its log, and a page's crash report. */

export const systemChannels = {
  getSystemInfo: channel(
    noInput,
    z.object({
      appVersion: z.string(),
      transport: z.enum(['electron', 'browser']),
      dataDir: z.string(),
      ledgerPath: z.string(),
      platform: z.string(),
      homeDir: z.string(),
    }),
  ),

  /**
   * The console service this page is served by: its version, and the newer version it hands over to
   * once its runs end (the operator chose "let those runs finish and switch afterwards"), when it does.
   * Meanwhile it takes no new run.
   */
  getServiceState: channel(noInput, z.object({ consoleVersion: z.string(), handingOverTo: z.string().nullable() })),

  /**
   * Where the console writes its log (a rotating file in the data directory), for Settings → About and
   * the error pages to name. Null when this console writes no log file (its log is on stderr only).
   */
  getLogInfo: channel(noInput, z.object({ logDir: z.string().nullable(), logFile: z.string().nullable() })),
  /** Opens the log's folder in the operator's file manager (on the machine the console runs on). */
  openLogFolder: channel(noInput, z.object({ path: z.string(), opened: z.boolean() })),
  /** Opens the data directory (ledger, task roots, logs) in the file manager of the machine the console runs on: a Disk full notice's action. */
  openDataFolder: channel(noInput, z.object({ path: z.string(), opened: z.boolean() })),
  /**
   * A page crashed while rendering (its error boundary caught it): the error goes to the console's log,
   * which the page then names. Bounded in size and, by the core, in rate.
   */
  reportRendererError: channel(
    z.strictObject({
      message: z.string().max(2000),
      stack: z.string().max(20_000).optional(),
      componentStack: z.string().max(20_000).optional(),
      route: z.string().max(1000),
    }),
    z.object({ logged: z.boolean() }),
  ),
} as const;
