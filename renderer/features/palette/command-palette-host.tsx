import { useCallback, useState } from 'react';
import { useLocation } from 'wouter';
import type { RunStatus, RunSummary, Task } from '../../../shared/entities';
import { operatorMessage } from '../../ui/error-message';
import { isActiveRunStatus } from '../../ui/run-status';
import { useStopRun } from '../runs/use-runs';
import { RunTaskDialog } from '../tasks/run-task-dialog';
import { CommandPalette } from './command-palette';
import type { PaletteCommand } from './palette-items';
import { usePaletteStore } from './palette-store';
import { StoppingRunFollower, StopRunStatus, type StopRunOutcome } from './stop-run-status';
import { useShortcutKeys } from './use-shortcut-keys';
import { useShortcutCommand } from './use-shortcut-command';

/**
 * Mounted once in the layout: the shortcut keys, the palette while it is open, and what its actions
 * leave behind once it has closed (the Run dialog it opened, how a Stop went).
 */
export function CommandPaletteHost() {
  useShortcutKeys();
  const view = usePaletteStore((state) => state.view);
  const openPalette = usePaletteStore((state) => state.openPalette);
  const closePalette = usePaletteStore((state) => state.closePalette);
  const runShortcut = useShortcutCommand();
  const [path, navigate] = useLocation();
  const stopRun = useStopRun();
  const [stopOutcome, setStopOutcome] = useState<StopRunOutcome | null>(null);
  // The Run dialog belongs to the page it was opened on: starting the run navigates away, and so
  // does any link; either way the dialog goes.
  const [runRequest, setRunRequest] = useState<{ task: Task; path: string } | null>(null);
  if (runRequest && runRequest.path !== path) setRunRequest(null);

  const stop = (run: RunSummary, label: string) => {
    setStopOutcome({ state: 'stopping', runId: run.id, label });
    stopRun.mutate(run.id, {
      // Stopping a queued run cancels it at once; a running agent is sent its stop and ends shortly.
      onSuccess: (summary) =>
        setStopOutcome(
          isActiveRunStatus(summary.status) ? { state: 'asked', runId: run.id, label } : { state: 'ended', runId: run.id, label, status: summary.status },
        ),
      onError: (error) => setStopOutcome({ state: 'failed', runId: run.id, label, message: operatorMessage(error) }),
    });
  };

  const onStoppedRunEnded = useCallback((status: RunStatus) => {
    setStopOutcome((outcome) => (outcome?.state === 'asked' ? { ...outcome, state: 'ended', status } : outcome));
  }, []);

  const onCommand = (command: PaletteCommand) => {
    switch (command.kind) {
      case 'navigate':
        closePalette();
        navigate(command.path);
        return;
      case 'shortcut':
        runShortcut(command.id);
        return;
      case 'run-task':
        closePalette();
        setRunRequest({ task: command.task, path });
        return;
      case 'stop-run':
        closePalette();
        stop(command.run, command.label);
        return;
    }
  };

  return (
    <>
      {view ? <CommandPalette view={view} onViewChange={openPalette} onClose={closePalette} onCommand={onCommand} /> : null}
      {runRequest && runRequest.path === path ? <RunTaskDialog task={runRequest.task} onClose={() => setRunRequest(null)} /> : null}
      {stopOutcome?.state === 'asked' ? <StoppingRunFollower runId={stopOutcome.runId} onEnded={onStoppedRunEnded} /> : null}
      <StopRunStatus outcome={stopOutcome} onDismiss={() => setStopOutcome(null)} />
    </>
  );
}
