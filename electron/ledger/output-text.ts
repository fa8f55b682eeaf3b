/**
 * What a person sees of a run's output, cut into rows of text for the search index
 * (search-index-writer.ts). Runs on the output writer's thread, so it imports nothing (see
 * output-writer-worker.ts).
 *
 * Everything here is hostile input (DESIGN.md section 4), and the index must find what the screen
 * shows, so:
 * - escape sequences (CSI, OSC, DCS, APC, …) are dropped without a trace: `pass\e[31mword` reads
 *   `password` on screen and is indexed so, also when the sequence is split across two writes;
 * - other control characters (NUL, BEL, backspace) are dropped the same way; line feeds, carriage
 *   returns and tabs separate words;
 * - invisible format characters (zero-width spaces and joiners, bidirectional controls, the byte order
 *   mark: Unicode's Cf) are dropped, so text an agent disguised with them is found as it reads;
 * - invalid UTF-8 becomes U+FFFD (a separator to the tokenizer), never a lost row;
 * - a row holds whole lines up to about `targetRowBytes`; a longer line (a 10 MB line of minified
 *   output) is cut at a space, or at a character boundary if it has none, every `maxRowBytes`.
 * The parser works on bytes: every byte of an escape sequence is ASCII, and no byte of a multi-byte
 * UTF-8 character is, so a character split across writes is joined again before it is decoded.
 */

export interface OutputTextRow {
  /** The offset in the run's output of the row's first visible byte: where a search result jumps. */
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

const hiddenFormatCharacters = /\p{Cf}/gu;
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
  private end: number;

  constructor(startOffset: number) {
    this.end = startOffset;
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
    if (this.length > 0) at = Math.min(at, this.offsets[0]!);
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
          } else if (byte >= SPACE && byte !== 0x7f) this.append(byte, offset, createdAt, rows);
          else if (byte === LF) {
            this.append(LF, offset, createdAt, rows);
            if (this.length >= targetRowBytes) this.emit(this.length, rows);
          } else if (byte === 0x0d || byte === 0x09 || byte === 0x0b || byte === 0x0c) this.append(SPACE, offset, createdAt, rows);
          // Any other control character (NUL, BEL, backspace, …) draws nothing: dropped, not a separator.
          break;
        case Parse.Escape:
          if (byte === 0x5b) this.parse = Parse.ControlSequence;
          else if (byte === 0x5d || byte === 0x50 || byte === 0x58 || byte === 0x5e || byte === 0x5f) this.parse = Parse.ControlString;
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
          } else if ((byte >= 0x40 && byte <= 0x7e) || byte === CAN || byte === SUB) this.parse = Parse.Ground;
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
    return text === null ? null : { byteOffset: this.offsets[0]!, byteEnd: this.offsets[this.length - 1]! + 1, createdAt: this.rowCreatedAt, text };
  }

  private append(byte: number, offset: number, createdAt: number, rows: OutputTextRow[]): void {
    if (this.length === 0) this.rowCreatedAt = createdAt;
    if (byte >= 0x80) this.nonAscii = true;
    this.row[this.length] = byte;
    this.offsets[this.length] = offset;
    this.length++;
    if (this.length >= maxRowBytes) this.emit(this.cutPoint(), rows);
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
    const text = rowText(this.row.subarray(0, count), this.nonAscii);
    if (text !== null) rows.push({ byteOffset: this.offsets[0]!, byteEnd: this.offsets[count - 1]! + 1, createdAt: this.rowCreatedAt, text });
    this.row.copyWithin(0, count, this.length);
    this.offsets.copyWithin(0, count, this.length);
    this.length -= count;
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

/** The row's text as it reads, or null when nothing but spaces shows. */
function rowText(bytes: Uint8Array, nonAscii: boolean): string | null {
  const decoded = decoder.decode(bytes);
  // Hidden characters are never ASCII: most rows skip the look for them.
  const text = nonAscii ? decoded.replace(hiddenFormatCharacters, '') : decoded;
  return /\S/u.test(text) ? text : null;
}
