import { useState } from 'react';
import { ariaKeyShortcuts, currentShortcutPlatform, shortcutById, shortcutLabel } from '../../app/shortcuts';
import { usePaletteStore } from './palette-store';
import { SearchIcon } from './search-icon';
import { ShortcutKeys } from './shortcut-keys';
import './command-palette.css';

/** The palette for the mouse too, and a reminder of its keys for whoever sees the button. */
export function CommandPaletteButton() {
  const openPalette = usePaletteStore((state) => state.openPalette);
  const [platform] = useState(currentShortcutPlatform);
  const shortcut = shortcutById('open-palette');
  return (
    <button
      type="button"
      className="palette-button"
      onClick={() => openPalette('everything')}
      aria-keyshortcuts={ariaKeyShortcuts(shortcut, platform)}
      title={`Command palette (${shortcutLabel(shortcut, platform)})`}
    >
      <SearchIcon />
      {/* main-nav__label: hidden with the rest of the labels when the navigation is collapsed. */}
      <span className="main-nav__label">Command palette</span>
      <span className="palette-button__keys">
        <ShortcutKeys id="open-palette" platform={platform} decorative />
      </span>
    </button>
  );
}
