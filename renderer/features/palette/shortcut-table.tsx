import { useId, useState } from 'react';
import { currentShortcutPlatform, shortcutById, shortcutLabel, shortcuts } from '../../app/shortcuts';
import { ShortcutKeys } from './shortcut-keys';
import './command-palette.css';

/** Every keyboard shortcut with what it does, for Settings → About. */
export function ShortcutTable() {
  const [platform] = useState(currentShortcutPlatform);
  const noteId = useId();
  return (
    <>
      <div className="table-wrap shortcut-table">
        <table className="data-table" aria-describedby={noteId}>
          <caption className="visually-hidden">Keyboard shortcuts</caption>
          <thead>
            <tr>
              <th scope="col">Keys</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {shortcuts.map((shortcut) => (
              <tr key={shortcut.id}>
                <td className="nowrap">
                  <ShortcutKeys id={shortcut.id} platform={platform} />
                </td>
                <td>{shortcut.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p id={noteId} className="muted">
        Single keys work when neither a field nor the terminal has focus and no dialog is open;{' '}
        {shortcutLabel(shortcutById('open-palette'), platform)} works in fields and in the terminal too.
      </p>
    </>
  );
}
