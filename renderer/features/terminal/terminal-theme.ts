import type { ITheme } from '@xterm/xterm';

/**
 * The terminal's colours, light and dark, following the system like the rest of the console. The
 * ANSI palettes keep CLI colours readable on each background (GitHub's terminal palettes).
 */
export const lightTerminalTheme: ITheme = {
  background: '#fbfcfd',
  foreground: '#1f2328',
  cursor: '#1f2328',
  cursorAccent: '#fbfcfd',
  selectionBackground: '#b6d4fe',
  scrollbarSliderBackground: 'rgba(31, 35, 40, 0.18)',
  scrollbarSliderHoverBackground: 'rgba(31, 35, 40, 0.32)',
  scrollbarSliderActiveBackground: 'rgba(31, 35, 40, 0.45)',
  black: '#24292f',
  red: '#cf222e',
  green: '#116329',
  yellow: '#7d4e00',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#1a7f37',
  brightYellow: '#633c01',
  brightBlue: '#218bff',
  brightMagenta: '#a475f9',
  brightCyan: '#3192aa',
  brightWhite: '#8c959f',
};

export const darkTerminalTheme: ITheme = {
  background: '#0e1116',
  foreground: '#d6dde5',
  cursor: '#d6dde5',
  cursorAccent: '#0e1116',
  selectionBackground: '#264f78',
  scrollbarSliderBackground: 'rgba(214, 221, 229, 0.16)',
  scrollbarSliderHoverBackground: 'rgba(214, 221, 229, 0.3)',
  scrollbarSliderActiveBackground: 'rgba(214, 221, 229, 0.42)',
  black: '#484f58',
  red: '#ff7b72',
  green: '#3fb950',
  yellow: '#d29922',
  blue: '#58a6ff',
  magenta: '#bc8cff',
  cyan: '#39c5cf',
  white: '#b1bac4',
  brightBlack: '#6e7681',
  brightRed: '#ffa198',
  brightGreen: '#56d364',
  brightYellow: '#e3b341',
  brightBlue: '#79c0ff',
  brightMagenta: '#d2a8ff',
  brightCyan: '#56d4dd',
  brightWhite: '#f0f6fc',
};

/** Find-in-output highlights (the search addon wants #RRGGBB). */
export function searchDecorations(dark: boolean) {
  return dark
    ? {
        matchBackground: '#5a4a12',
        activeMatchBackground: '#9e6a03',
        matchOverviewRuler: '#d29922',
        activeMatchColorOverviewRuler: '#f0883e',
      }
    : {
        matchBackground: '#fff1a8',
        activeMatchBackground: '#ffb44c',
        matchOverviewRuler: '#bf8700',
        activeMatchColorOverviewRuler: '#bc4c00',
      };
}

export const darkSchemeQuery = '(prefers-color-scheme: dark)';
