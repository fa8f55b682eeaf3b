import type { AiConnection } from '../../../shared/entities';
import { connectionOptionLabel } from './connection-labels';

/** The value of a picker's "None": no AI connection. */
export const noConnection = '';

/** An AI-connection picker's options: None, then each connection by name and key hint. */
export function ConnectionOptions({ connections }: { connections: readonly AiConnection[] }) {
  return (
    <>
      <option value={noConnection}>None</option>
      {connections.map((connection) => (
        <option key={connection.id} value={connection.id}>
          {connectionOptionLabel(connection)}
        </option>
      ))}
    </>
  );
}
