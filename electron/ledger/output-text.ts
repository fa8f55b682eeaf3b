/**
 * What a person sees of a run's output, cut into rows of text for the search index
 * (search-index-writer.ts). Runs on the output writer's thread, so it imports nothing (see
 * output-writer-worker.ts).
 *
 * Everything here is hostile input (DESIGN.md section 4), and the index must find what the screen
 * shows, so:
 * - escape sequences (CSI, OSC, DCS, APC, …) are dropped without a trace: `pass\e[31mword` reads
 *   `password` on screen and is indexed so, also when the sequence is split across two writes;
 * - a carriage return or backspace moves back over the line, and what is written then replaces what
 *   was there, as on screen: a progress bar or spinner (`50%\r100%`, `|\b/`) is indexed as it ends, not
 *   as every frame it drew; erase in line (`CSI K`) erases; line feeds end lines, tabs separate words;
 * - other control characters (NUL, BEL) are dropped without a trace;
 * - characters that draw nothing are dropped, so text an agent disguised with them is found as it
 *   reads: Unicode's format characters (Cf: zero-width spaces and joiners, bidirectional controls, the
 *   byte order mark, tags) and its default-ignorable ones that are not Cf (Hangul fillers U+115F,
 *   U+1160, U+3164, U+FFA0, variation selectors, the combining grapheme joiner); right-to-left text
 *   itself is kept as it is stored (logical order), which is how a person types it;
 * - invalid UTF-8 becomes U+FFFD (a separator to the tokenizer), never a lost row;
 * - a row holds whole lines up to about `targetRowBytes`; a longer line (a 10 MB line of minified
 *   output) is cut at a space, or at a character boundary if it has none, every `maxRowBytes`.
 * The parser works on bytes: every byte of an escape sequence is ASCII, and no byte of a multi-byte
 * UTF-8 character is, so a character split across writes is joined again before it is decoded.
 */

export interface OutputTextRow {
  /** The offset in the run's output of the row's first visible byte: reading again starts there. */
  byteOffset: number;
  /** Just past its last visible byte: reading [byteOffset, byteEnd) again gives the same text (outputRowText). */
  byteEnd: number;
  createdAt: number;
  text: string;
}

/** A row ends at the first line end after this many bytes: a few lines of ordinary output. */
export const targetRowBytes = 1024;
/** A row without a line end is cut here (at a space when there is one in its second half). */
export const maxRowBytes = 4096;

// The parser's states (plain numbers: the worker's source is stripped of types, never compiled).
const Parse = {
  Ground: 0,
  Escape: 1,
  EscapeIntermediate: 2,
  ControlSequence: 3,
  /** OSC, DCS, SOS, PM, APC: a payload up to BEL or ST (ESC \). */
  ControlString: 4,
  ControlStringEscape: 5,
} as const;
type ParseState = (typeof Parse)[keyof typeof Parse];

const ESC = 0x1b;
const LF = 0x0a;
const SPACE = 0x20;
const CAN = 0x18;
const SUB = 0x1a;

/** Characters that draw nothing (README "Search"): the text and the query both drop them. */
export const hiddenCharacters = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const BS = 0x08;
const CR = 0x0d;
const decoder = new TextDecoder('utf-8', { fatal: false });

export class OutputTextExtractor {
  private parse: ParseState = Parse.Ground;
  /** Where the escape sequence being read began: a resumed extractor starts there, in ground state. */
  private sequenceStart = 0;
  private readonly row = new Uint8Array(maxRowBytes + 1);
  /** The output offset of each byte in `row`. */
  private readonly offsets = new Float64Array(maxRowBytes + 1);
  private length = 0;
  /** The row holds a byte above ASCII: only then is it checked for hidden characters. */
  private nonAscii = false;
  private rowCreatedAt = 0;
  /**
   * A row is open from its first visible byte (`rowStart`) until it is emitted, also when what it
   * showed was erased since: reading again from `rowStart` in ground state replays what was written
   * over it, and gives the same text. `rowEnd`: just past the last byte that changed it.
   */
  private rowOpen = false;
  private rowStart = 0;
  private rowEnd = 0;
  /** Where in `row` the current line begins (after its last line feed), and where the next byte goes. */
  private lineStart = 0;
  private cursor = 0;
  /** A control sequence's first parameter, and whether it is private (`CSI ?…`): for erase in line. */
  private sequenceParameter = 0;
  private sequenceParameterEnded = false;
  private sequencePrivate = false;
  /** Where each line of the row in progress began (outputRowLines only; null on the writer's path). */
  private lineOffsets: number[] | null = null;
  private linesEnded = 0;
  private end: number;

  constructor(startOffset: number, options: { lineOffsets?: boolean } = {}) {
    this.end = startOffset;
    if (options.lineOffsets) this.lineOffsets = [];
  }

  /** Where each line of the row in progress began in the output (made with `lineOffsets`). */
  get rowLineOffsets(): readonly number[] {
    return this.lineOffsets ?? [];
  }

  /** The offset just past the last byte read. */
  get consumedEnd(): number {
    return this.end;
  }

  /**
   * Where to start reading again, in ground state, to come back to this extractor's state: the row
   * in progress, or the escape sequence being read, or the end.
   */
  get resumeOffset(): number {
    let at = this.end;
    if (this.parse !== Parse.Ground) at = Math.min(at, this.sequenceStart);
    if (this.rowOpen) at = Math.min(at, this.rowStart);
    return at;
  }

  /** Reads the next bytes of the output (starting at `consumedEnd`), adding each finished row to `rows`. */
  push(bytes: Uint8Array, createdAt: number, rows: OutputTextRow[]): void {
    let offset = this.end;
    for (let i = 0; i < bytes.length; i++, offset++) {
      const byte = bytes[i]!;
      switch (this.parse) {
        case Parse.Ground:
          if (byte === ESC) {
            this.parse = Parse.Escape;
            this.sequenceStart = offset;
          } else if (byte >= SPACE && byte !== 0x7f) this.write(byte, offset, createdAt, rows);
          else if (byte === LF) {
            // A line feed ends the line wherever the cursor was (a CR LF keeps the line as it reads).
            this.cursor = this.length;
            this.append(LF, offset, createdAt, rows);
            this.lineStart = this.cursor = this.length;
            this.linesEnded++;
            if (this.length >= targetRowBytes) this.emit(this.length, rows);
          } else if (byte === CR) this.moveCursor(this.lineStart, offset);
          else if (byte === BS) this.moveCursor(this.previousCharacter(), offset);
          else if (byte === 0x09 || byte === 0x0b || byte === 0x0c) this.write(SPACE, offset, createdAt, rows);
          // Any other control character (NUL, BEL, …) draws nothing: dropped, not a separator.
          break;
        case Parse.Escape:
          if (byte === 0x5b) {
            this.parse = Parse.ControlSequence;
            this.sequenceParameter = 0;
            this.sequenceParameterEnded = false;
            this.sequencePrivate = false;
          } else if (byte === 0x5d || byte === 0x50 || byte === 0x58 || byte === 0x5e || byte === 0x5f) this.parse = Parse.ControlString;
          else if (byte >= 0x20 && byte <= 0x2f) this.parse = Parse.EscapeIntermediate;
          else if (byte === ESC) this.sequenceStart = offset;
          else this.parse = Parse.Ground;
          break;
        case Parse.EscapeIntermediate:
          if (byte === ESC) {
            this.parse = Parse.Escape;
            this.sequenceStart = offset;
          } else if (byte < 0x20 || byte > 0x2f) this.parse = Parse.Ground;
          break;
        case Parse.ControlSequence:
          if (byte === ESC) {
            this.parse = Parse.Escape;
            this.sequenceStart = offset;
          } else if (byte >= 0x30 && byte <= 0x39) {
            if (!this.sequenceParameterEnded) this.sequenceParameter = Math.min(9999, this.sequenceParameter * 10 + byte - 0x30);
          } else if (byte === 0x3b) this.sequenceParameterEnded = true;
          else if (byte >= 0x3c && byte <= 0x3f) this.sequencePrivate = true;
          else if (byte >= 0x40 && byte <= 0x7e) {
            this.parse = Parse.Ground;
            if (byte === 0x4b && !this.sequencePrivate) this.eraseInLine(this.sequenceParameter, offset);
          } else if (byte === CAN || byte === SUB) this.parse = Parse.Ground;
          break;
        case Parse.ControlString:
          if (byte === 0x07 || byte === CAN || byte === SUB) this.parse = Parse.Ground;
          else if (byte === ESC) this.parse = Parse.ControlStringEscape;
          break;
        case Parse.ControlStringEscape:
          if (byte === 0x5c) this.parse = Parse.Ground;
          else {
            // Not ST: the ESC began a new sequence (the string ended there).
            this.parse = Parse.Escape;
            this.sequenceStart = offset - 1;
            i--;
            offset--;
          }
          break;
      }
    }
    this.end = offset;
  }

  /** The row in progress (output since the last row ended), or null when it shows nothing. */
  pending(): OutputTextRow | null {
    if (this.length === 0) return null;
    const text = rowText(this.row.subarray(0, this.length), this.nonAscii);
    return text === null ? null : { byteOffset: this.rowStart, byteEnd: this.rowEnd, createdAt: this.rowCreatedAt, text };
  }

  /** A visible byte at the cursor: added at the end of the line, or over what the cursor went back over. */
  private write(byte: number, offset: number, createdAt: number, rows: OutputTextRow[]): void {
    if (this.cursor === this.length) {
      this.append(byte, offset, createdAt, rows);
      this.cursor = this.length;
      return;
    }
    if (byte >= 0x80) this.nonAscii = true;
    if (byte < 0x80 || byte >= 0xc0) {
      // A character's first byte takes the place of the whole character under the cursor.
      const size = this.characterSize(this.cursor);
      if (size > 1) {
        this.row.copyWithin(this.cursor + 1, this.cursor + size, this.length);
        this.offsets.copyWithin(this.cursor + 1, this.cursor + size, this.length);
        this.length -= size - 1;
      }
    } else {
      // Its further bytes go in after it.
      this.row.copyWithin(this.cursor + 1, this.cursor, this.length);
      this.offsets.copyWithin(this.cursor + 1, this.cursor, this.length);
      this.length++;
    }
    this.row[this.cursor] = byte;
    this.offsets[this.cursor] = offset;
    this.cursor++;
    this.rowEnd = offset + 1;
    if (this.length >= maxRowBytes) this.emit(this.cutPoint(), rows);
  }

  private append(byte: number, offset: number, createdAt: number, rows: OutputTextRow[]): void {
    if (!this.rowOpen) {
      this.rowOpen = true;
      this.rowStart = offset;
      this.rowCreatedAt = createdAt;
      this.linesEnded = 0;
      if (this.lineOffsets) this.lineOffsets.length = 0;
    }
    if (this.lineOffsets && this.lineOffsets.length <= this.linesEnded) this.lineOffsets.push(offset);
    if (byte >= 0x80) this.nonAscii = true;
    this.row[this.length] = byte;
    this.offsets[this.length] = offset;
    this.length++;
    this.rowEnd = offset + 1;
    if (this.length >= maxRowBytes) this.emit(this.cutPoint(), rows);
  }

  /** A carriage return or backspace: the cursor goes back within the line (nothing is erased yet). */
  private moveCursor(to: number, offset: number): void {
    if (!this.rowOpen) return;
    this.cursor = to;
    this.rowEnd = offset + 1;
  }

  /** Where the character before the cursor begins (a backspace goes back one character, not one byte). */
  private previousCharacter(): number {
    let at = this.cursor;
    if (at > this.lineStart) at--;
    while (at > this.lineStart && (this.row[at]! & 0xc0) === 0x80) at--;
    return at;
  }

  /** The bytes of the character that begins at `at` (1 for ASCII, an invalid byte or the end). */
  private characterSize(at: number): number {
    if (at >= this.length || this.row[at]! < 0xc0) return 1;
    let size = 1;
    while (size < 4 && at + size < this.length && (this.row[at + size]! & 0xc0) === 0x80) size++;
    return size;
  }

  /**
   * Erase in line (`CSI K`): 0 from the cursor to the line's end, 1 from its start to the cursor (left
   * blank), 2 all of it. The cursor stays; what is then written goes where it is.
   */
  private eraseInLine(mode: number, offset: number): void {
    if (!this.rowOpen) return;
    if (mode === 0) this.length = Math.max(this.lineStart, this.cursor);
    else if (mode === 2) this.length = this.cursor = this.lineStart;
    else if (mode === 1) {
      const through = Math.min(this.length, this.cursor + this.characterSize(this.cursor));
      for (let at = this.lineStart; at < through; at++) {
        this.row[at] = SPACE;
      }
    } else return;
    this.rowEnd = offset + 1;
  }

  /** Where to cut a full row: after its last space or line end in the second half, else at a character boundary. */
  private cutPoint(): number {
    for (let i = this.length - 1; i >= maxRowBytes / 2; i--) {
      if (this.row[i] === SPACE || this.row[i] === LF) return i + 1;
    }
    let at = this.length;
    // Back over UTF-8 continuation bytes (10xxxxxx) to the first byte of the last character.
    while (at > 1 && (this.row[at - 1]! & 0xc0) === 0x80) at--;
    if (at > 1 && this.row[at - 1]! >= 0xc0) at--;
    return at > 1 ? at : this.length;
  }

  private emit(count: number, rows: OutputTextRow[]): void {
    const whole = count === this.length;
    // A cut row (an over-long line) ends after the latest byte written into its part.
    let end = this.rowEnd;
    if (!whole) {
      end = 0;
      for (let at = 0; at < count; at++) end = Math.max(end, this.offsets[at]! + 1);
    }
    const text = rowText(this.row.subarray(0, count), this.nonAscii);
    if (text !== null) rows.push({ byteOffset: this.rowStart, byteEnd: end, createdAt: this.rowCreatedAt, text });
    this.row.copyWithin(0, count, this.length);
    this.offsets.copyWithin(0, count, this.length);
    this.length -= count;
    this.lineStart = Math.max(0, this.lineStart - count);
    this.cursor = Math.max(0, this.cursor - count);
    this.rowOpen = this.length > 0;
    if (this.rowOpen) {
      let start = this.offsets[0]!;
      for (let at = 1; at < this.length; at++) start = Math.min(start, this.offsets[at]!);
      this.rowStart = start;
    }
    // What is left of a cut row is rechecked with the next row (rare: only over-long lines are cut).
    this.nonAscii = this.length > 0 && this.nonAscii;
  }
}

/**
 * The text of the row stored at [byteOffset, byteEnd) of a run's output, read again from those bytes
 * (the index keeps no copy of it): a row starts at a visible byte, so reading from there in ground
 * state gives what the index was given.
 */
export function outputRowText(bytes: Uint8Array, byteOffset: number): string {
  const extractor = new OutputTextExtractor(byteOffset);
  const rows: OutputTextRow[] = [];
  extractor.push(bytes, 0, rows);
  const pending = extractor.pending();
  if (pending) rows.push(pending);
  return rows.map((row) => row.text).join('');
}

/**
 * The row at [byteOffset, …) read again as outputRowText reads it, with where each of its lines
 * begins in the output: a result jumps to the line that holds its match, not to the row's first line.
 */
export function outputRowLines(bytes: Uint8Array, byteOffset: number): { text: string; lineOffsets: readonly number[] } {
  const extractor = new OutputTextExtractor(byteOffset, { lineOffsets: true });
  const rows: OutputTextRow[] = [];
  extractor.push(bytes, 0, rows);
  const pending = extractor.pending();
  if (pending) rows.push(pending);
  // The range holds one row; should it hold more (it never does), the line offsets are the last one's.
  return { text: rows.map((row) => row.text).join(''), lineOffsets: rows.length <= 1 ? extractor.rowLineOffsets : [] };
}

/** The row's text as it reads, or null when nothing but spaces shows. */
function rowText(bytes: Uint8Array, nonAscii: boolean): string | null {
  const decoded = decoder.decode(bytes);
  // Hidden characters are never ASCII: most rows skip the look for them.
  const text = nonAscii ? decoded.replace(hiddenCharacters, '') : decoded;
  return /\S/u.test(text) ? text : null;
}
