import { Fragment } from 'react';
import { keyStrokeLabel, shortcutById, shortcutLabel, type ShortcutId, type ShortcutPlatform } from '../../app/shortcuts';

/**
 * A shortcut's keys drawn as key caps ("G then R"). The words are there for screen readers too,
 * unless `decorative`, where the control it sits in names the shortcut another way.
 */
export function ShortcutKeys({ id, platform, decorative = false }: { id: ShortcutId; platform: ShortcutPlatform; decorative?: boolean }) {
  const shortcut = shortcutById(id);
  return (
    <span className="shortcut-keys" aria-hidden={decorative || undefined} title={decorative ? undefined : shortcutLabel(shortcut, platform)}>
      {shortcut.strokes.map((stroke, index) => (
        <Fragment key={index}>
          {index > 0 ? <span className="shortcut-keys__then"> then </span> : null}
          <kbd className="shortcut-keys__key">{keyStrokeLabel(stroke, platform)}</kbd>
        </Fragment>
      ))}
    </span>
  );
}
