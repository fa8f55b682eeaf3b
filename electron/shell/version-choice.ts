import type { ServiceOfAnotherVersion } from '../../shared/service-hello';
import type { ServiceClientKind } from '../../shared/service-hello';
import { handOverAfterRuns, stopServiceOfAnotherVersion, type AttachOptions } from '../service/service-launcher';

/**
 * The desktop app found the console service of its data directory running another version
 * (service_version_mismatch). It never stops that service's runs silently: it asks, naming the version
 * that runs them, with the two ways on issue 27 gives, the same two `npm run serve` offers
 * (`--after-runs`, `--restart-now`), through the same launcher functions:
 * - let those runs finish and switch afterwards: the older service takes no new run and stops when its
 *   last run ends, and this version's service starts by itself then (the app quits meanwhile);
 * - restart now: the older service is stopped (its runs strand, and each can be resumed), and the app
 *   attaches to this version's.
 */

export type VersionChoice = 'after-runs' | 'restart-now' | 'quit';
export const versionChoiceButtons: Record<VersionChoice, string> = {
  'after-runs': 'Let them finish, switch afterwards',
  'restart-now': 'Restart now',
  quit: 'Quit',
};
/** The buttons in the dialog's order; the first is the default (nothing is lost by it). */
export const versionChoiceOrder: readonly VersionChoice[] = ['after-runs', 'restart-now', 'quit'];

export function versionChoiceQuestion(service: ServiceOfAnotherVersion | undefined, refusal: string, appVersion: string): { message: string; detail: string; buttons: string[] } {
  const buttons = versionChoiceOrder.map((choice) => versionChoiceButtons[choice]);
  if (!service) return { message: 'Another version of the console service runs here', detail: refusal, buttons };
  const runs = service.liveRuns === 1 ? '1 run' : `${service.liveRuns} runs`;
  const them = service.liveRuns === 1 ? 'it' : 'them';
  return {
    message: `Version ${service.consoleVersion} of the console service is running ${runs}`,
    detail:
      `This app is version ${appVersion}. ` +
      (service.handingOverTo !== null
        ? `That service is already finishing its runs; version ${service.handingOverTo} starts by itself when they end. `
        : '') +
      `Let ${them} finish and switch afterwards: the older service starts no new run, stops when its last run ends, and version ${appVersion} starts by itself then; open Operator Console again once it has. ` +
      `Or restart now: runs still going are stopped and marked stranded, and each can be resumed.`,
    buttons,
  };
}

/**
 * Does what the operator chose: `attach` (this version's service runs now, or will in a moment: attach
 * to it as usual), or `quit` with the sentence to show first (the switch waits for the runs, or failed).
 */
export async function settleVersionChoice(
  choice: VersionChoice,
  options: { socketPath: string; start: Omit<AttachOptions, 'client'>; client: ServiceClientKind; appVersion: string },
): Promise<{ kind: 'attach' } | { kind: 'quit'; say: string | null }> {
  if (choice === 'quit') return { kind: 'quit', say: null };
  if (choice === 'restart-now') {
    const stopped = await stopServiceOfAnotherVersion(options.start.dataDir);
    if (stopped && !stopped.gone) return { kind: 'quit', say: `The console service (pid ${stopped.pid}) did not stop in 30 s; end it with kill ${stopped.pid}, then open Operator Console again.` };
    return { kind: 'attach' };
  }
  const outcome = await handOverAfterRuns(options.socketPath, options.start, options.client);
  if (outcome.kind === 'attach') return { kind: 'attach' };
  const { older } = outcome;
  if (outcome.kind === 'stuck') return { kind: 'quit', say: `The console service of version ${older.consoleVersion} (pid ${older.pid}) did not stop in 30 s; end it with kill ${older.pid}, then open Operator Console again.` };
  const runs = older.liveRuns === 1 ? '1 run' : `${older.liveRuns} runs`;
  return {
    kind: 'quit',
    say: `Version ${older.consoleVersion} finishes its ${runs} and starts no new one; version ${options.appVersion} starts by itself when ${older.liveRuns === 1 ? 'it ends' : 'they end'}. Open Operator Console again then.`,
  };
}
