import path from 'node:path';
import { runSetupSchema, type RunSetup } from '../../../shared/entities';
import type { OperatorErrorShape } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { copyProjectFiles } from '../../task-root/run-file-copies';
import type { TaskRoot } from '../../task-root/task-root-layout';
import type { Owner } from '../../platform/safe-path';
import { logRedaction } from '../../platform/log-redaction';
import type { PtyExit, PtySession } from '../../pty/pty-session';
import type { PtyOutputSource } from '../../pty/output-pipeline';
import type { ActiveRun, RunContext } from '../run-context';

/**
 * A project's setup, in each run's preparation (issue 12): the files copied from the project folder
 * into the view and the run's variables merged from its layers (both at every preparation, so a retry
 * or a resume gets today's), and the project's setup command, run in the view before the agent (once:
 * a run whose setup succeeded does not run it again on a retry or a resume). The setup command runs
 * confined exactly as the agent is (attempt/begin-attempt.ts makes one confinement for both, attempt/confined-process.ts runs both), on
 * its own PTY, with its output in the run's terminal and ledger between two "setup" lines.
 */

export interface PreparedSetup {
  record: RunSetup;
  /** The merged variables, for the confined environment (setup command and agent alike). */
  env: Record<string, string>;
  /** The setup command to run before the agent; null when there is none or it already succeeded. */
  command: string | null;
}

export function savedRunSetup(json: string | null): RunSetup | null {
  if (!json) return null;
  try {
    const parsed = runSetupSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Copies the files, merges the variables (their secrets join the run's, to be redacted) and records both on the run. */
export async function prepareRunSetup(
  context: RunContext,
  active: ActiveRun,
  input: { projectId: string; taskId: string; taskRoot: TaskRoot; owner: Owner | null },
): Promise<PreparedSetup> {
  const { projectSetup } = context.options;
  const settings = projectSetup.getSetup(input.projectId);
  const { taskRoot } = input;
  const copies = await copyProjectFiles({
    projectPath: taskRoot.projectPath,
    taskRoot: taskRoot.root,
    view: taskRoot.view,
    patterns: settings.copyPatterns,
    // The resolved data directory: the task root is <data>/tasks/<runId>.
    dataDir: path.dirname(path.dirname(taskRoot.root)),
    owner: input.owner,
  });
  const variables = projectSetup.variablesForRun({ projectId: input.projectId, agentId: active.agentId, taskId: input.taskId });
  for (const secret of variables.secrets) {
    active.secrets.add(secret);
    logRedaction.remember(secret);
  }
  const previous = savedRunSetup(context.ledger.runs.row(active.runId)?.setup_json ?? null);
  const done = previous?.setup?.status === 'succeeded' && previous.setupCommand === settings.setupCommand;
  const record: RunSetup = {
    copiedFiles: copies.copied,
    skippedFiles: copies.skipped,
    variables: variables.listing,
    setupCommand: settings.setupCommand,
    setup: done ? previous.setup : null,
  };
  saveRunSetup(context, active.runId, record);
  if (copies.copied.length > 0 || copies.skipped.length > 0) {
    context.log.info('project files copied into the run', { runId: active.runId, copied: copies.copied.length, skipped: copies.skipped.length });
  }
  return { record, env: variables.env, command: done ? null : settings.setupCommand };
}

export function saveRunSetup(context: RunContext, runId: string, record: RunSetup): void {
  context.ledger.runs.update(runId, { setupJson: JSON.stringify(record) });
}

/** The run's setup command is done with: succeeded (the agent may start), failed or stopped. */
export type SetupOutcome = { kind: 'succeeded' } | { kind: 'failed'; exit: PtyExit } | { kind: 'stopped'; exit: PtyExit };

export function setupFailure(projectId: string, command: string, exit: PtyExit): OperatorErrorShape {
  const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.exitCode}`;
  return {
    code: 'setup_failed',
    reason: 'setup_command_failed',
    message:
      `The project’s setup command (${commandLabel(command)}) ${how}, so the agent did not start. ` +
      'Its output is in the run’s terminal under “setup”. Fix the command, or what it needs, in the project’s setup settings, then run the task again.',
    actionUrl: actionRoute({ kind: 'project-setup', projectId, field: 'setup-command' }),
  };
}

/** The command as a marker names it: its first line, without control characters, at most 80 characters. */
export function commandLabel(command: string): string {
  const lines = command.split(/\r?\n/).filter((line) => line.trim() !== '');
  // eslint-disable-next-line no-control-regex
  const first = (lines[0] ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim();
  const clipped = first.length > 80 ? `${first.slice(0, 79)}…` : first;
  return lines.length > 1 ? `${clipped} …` : clipped;
}

const dim = (text: string) => Buffer.from(`\x1b[2m── ${text} ──\x1b[0m\r\n`, 'utf8');

/** The line before the setup's own output: the console's, written into the run's output with it. */
export function setupOpening(command: string): Buffer {
  return dim(`setup · ${commandLabel(command)}`);
}

/** The line after it, saying how it ended and whether the agent starts. */
export function setupClosing(exit: PtyExit, stopped: boolean): Buffer {
  if (stopped) return dim('setup stopped · the agent does not start');
  if (exit.exitCode === 0 && !exit.signal) return dim('setup finished · the agent starts');
  return dim(`setup failed · ${exit.signal ? `ended by ${exit.signal}` : `exit code ${exit.exitCode}`} · the agent does not start`);
}

/**
 * The setup's PTY output framed by the console's two "setup" lines: the opening before its first
 * byte, the closing after its last and before its exit is heard. They go through the same pipeline
 * as the PTY's bytes (redacted, in the ledger under the attempt, to viewers live), so a terminal that
 * replays the run later shows them in the same place.
 */
export function framedSetupOutput(session: PtySession, opening: Buffer, closing: (exit: PtyExit) => Buffer): PtyOutputSource {
  const dataListeners = new Set<(bytes: Buffer) => void>();
  const exitListeners = new Set<(exit: PtyExit) => void>();
  let opened = false;
  const emit = (bytes: Buffer) => {
    for (const listener of dataListeners) listener(bytes);
  };
  const open = () => {
    if (opened) return;
    opened = true;
    emit(opening);
  };
  session.onData((bytes) => {
    open();
    emit(bytes);
  });
  session.onExit((exit) => {
    open();
    emit(closing(exit));
    for (const listener of exitListeners) listener(exit);
  });
  // Sent before any byte the PTY reads: a data event comes from the event loop, after this microtask.
  queueMicrotask(open);
  return {
    onData(listener) {
      dataListeners.add(listener);
      return () => void dataListeners.delete(listener);
    },
    onExit(listener) {
      exitListeners.add(listener);
      return () => void exitListeners.delete(listener);
    },
    pause: () => session.pause(),
    resume: () => session.resume(),
  };
}
