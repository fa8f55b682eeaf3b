import type { Task } from '../../../shared/entities';
import { ModalDialog } from '../../ui/modal-dialog';
import { VariablesEditor } from '../projects/variables-editor';

/** A task's overrides: the strongest variable layer, over its project's and its agent's. */
export function TaskVariablesDialog({ task, onClose }: { task: Task; onClose: () => void }) {
  return (
    <ModalDialog
      title={`Variables of ${task.title}`}
      onClose={onClose}
      footer={
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      }
    >
      <VariablesEditor layer="task" ownerId={task.id} ownerName={task.title} />
    </ModalDialog>
  );
}
