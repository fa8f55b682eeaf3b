import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { RunStatus } from '../../shared/entities';
import type { ServiceConnection } from '../service/service-client';

/**
 * Quitting the desktop app while runs are going asks once: keep them running in the background (the
 * default) or stop them. The answer can be remembered (a small file in the app's profile folder), and
 * then the app does not ask again. Kept runs go on in the console service; stopped ones are stopped
 * through the contract, as the Stop button does, before the app lets the service go.
 */

export type QuitRunsChoice = 'keep' | 'stop';

/** The operator's answer: what to do, and whether to do it from now on without asking. */
export interface QuitRunsAnswer {
  choice: QuitRunsChoice;
  remember: boolean;
}

/** The statuses of a run that is going: the ones Stop applies to. */
const goingStatuses: readonly RunStatus[] = ['queued', 'admitted', 'preparing', 'setting_up', 'running'];

export function readRememberedQuitChoice(file: string): QuitRunsChoice | undefined {
  try {
    const value = (JSON.parse(readFileSync(file, 'utf8')) as { quitWithRuns?: unknown }).quitWithRuns;
    return value === 'keep' || value === 'stop' ? value : undefined;
  } catch {
    return undefined;
  }
}

function rememberQuitChoice(file: string, choice: QuitRunsChoice): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ quitWithRuns: choice })}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/** The runs going now, as the service lists them. */
export async function goingRunIds(connection: Pick<ServiceConnection, 'call'>): Promise<string[]> {
  const lists = await Promise.all(goingStatuses.map((status) => connection.call('listRuns', { status, limit: 500 })));
  return lists.flatMap((list) => list.runs.map((run) => run.id));
}

/**
 * What quitting does with the runs going: nothing to decide without any, the remembered answer when
 * there is one, else the operator's (asked with `ask`, which shows the dialog). Stops them when that is
 * the answer, and returns how many were stopped.
 */
export async function settleRunsOnQuit(options: {
  connection: Pick<ServiceConnection, 'call'>;
  rememberedFile: string;
  ask(going: number): Promise<QuitRunsAnswer>;
}): Promise<{ choice: QuitRunsChoice; stopped: number }> {
  const going = await goingRunIds(options.connection);
  if (going.length === 0) return { choice: 'keep', stopped: 0 };
  let choice = readRememberedQuitChoice(options.rememberedFile);
  if (!choice) {
    const answer = await options.ask(going.length);
    choice = answer.choice;
    if (answer.remember) rememberQuitChoice(options.rememberedFile, choice);
  }
  if (choice === 'keep') return { choice, stopped: 0 };
  // One by one, as the Stop button does: a run that ended meanwhile is no failure of the quit.
  let stopped = 0;
  for (const runId of going) {
    try {
      await options.connection.call('stopRun', { runId });
      stopped += 1;
    } catch {
      // Ended already, or refused: it is not going any more either way.
    }
  }
  return { choice, stopped };
}

/** The dialog's words: what each button does, the default first. */
export function quitRunsQuestion(going: number): { message: string; detail: string; buttons: [string, string]; checkboxLabel: string } {
  const runs = going === 1 ? '1 run is' : `${going} runs are`;
  return {
    message: `${runs} still going`,
    detail:
      'Keep them running in the background: the console service goes on with them, and they are here, whole, when you open the console again. ' +
      'Or stop them now: each can be resumed later.',
    buttons: ['Keep running in the background', 'Stop them'],
    checkboxLabel: 'Remember my choice',
  };
}
