/**
 * Turns raw PTY byte chunks into complete text lines for the event parsers.
 *
 * A PTY translates "\n" to "\r\n", splits output at arbitrary byte boundaries (also inside a
 * multi-byte character or an escape sequence) and lets programs decorate lines with ANSI colours.
 * Decoding is streamed (TextDecoder with stream: true) so a character split across chunks survives;
 * escape sequences are removed per complete line, so one split across chunks is removed too.
 */

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), DCS/SOS/PM/APC strings, charset selection
// (ESC ( B), and the remaining two-byte escapes; plus 8-bit CSI (U+009B).
const ansiPattern =
  // eslint-disable-next-line no-control-regex -- ESC and BEL are what these sequences are made of.
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[PX^_][^\u001b]*\u001b\\|\u001b[()*+][0-9A-Za-z]|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.replace(ansiPattern, '');
}

/**
 * What a terminal would leave on screen for one line: escape sequences removed, and text before a
 * bare carriage return overwritten (spinners redraw a line with "\r"). A valid JSON line never holds
 * a raw "\r" (JSON escapes it), so this cannot damage one.
 */
export function cleanLine(line: string): string {
  const withoutEscapes = stripAnsi(line);
  if (!withoutEscapes.includes('\r')) return withoutEscapes;
  const segments = withoutEscapes.split('\r').filter((segment) => segment !== '');
  return segments[segments.length - 1] ?? '';
}

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private pending = '';

  /** @param maxLineLength a line longer than this is emitted in pieces rather than held without bound. */
  constructor(private readonly maxLineLength = 4 * 1024 * 1024) {}

  push(chunk: Uint8Array): string[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let newline = this.pending.indexOf('\n');
    while (newline !== -1) {
      lines.push(cleanLine(stripCarriageReturn(this.pending.slice(0, newline))));
      this.pending = this.pending.slice(newline + 1);
      newline = this.pending.indexOf('\n');
    }
    while (this.pending.length > this.maxLineLength) {
      lines.push(cleanLine(this.pending.slice(0, this.maxLineLength)));
      this.pending = this.pending.slice(this.maxLineLength);
    }
    return lines;
  }

  /** The last line, if the output did not end with a newline (call when the process exits). */
  flush(): string[] {
    this.pending += this.decoder.decode();
    const rest = this.pending;
    this.pending = '';
    const line = cleanLine(stripCarriageReturn(rest));
    return line === '' ? [] : [line];
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
