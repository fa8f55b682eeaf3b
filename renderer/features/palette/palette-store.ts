import { create } from 'zustand';

/** Everything it can find, or just the keyboard shortcuts (what `?` opens). */
export type PaletteView = 'everything' | 'shortcuts';

/**
 * Whether the command palette is open, and on which view. UI state only; its own small store so the
 * key handler, the navigation's button and the palette itself can reach it without a shared parent.
 */
export interface PaletteState {
  view: PaletteView | null;
  openPalette: (view?: PaletteView) => void;
  closePalette: () => void;
}

export const usePaletteStore = create<PaletteState>()((set) => ({
  view: null,
  openPalette: (view = 'everything') => set({ view }),
  closePalette: () => set({ view: null }),
}));
