/**
 * Characters that change what code means without showing: bidirectional controls that reorder how a
 * line reads ("Trojan Source", CVE-2021-42574), zero-width and other invisible format characters that
 * make two names that look alike differ, and control characters that rewrite a terminal when the file
 * is printed. An operator reviews what an unattended agent wrote; these are how such code can read one
 * way and run another.
 *
 * Pure (no DOM), so the renderer's Changes view uses it and the core could too.
 */

export type HiddenCharacterKind = 'bidi' | 'invisible' | 'separator' | 'control';

export interface HiddenCharacter {
  /** Where it starts in the text, in UTF-16 code units. */
  index: number;
  /** 1, or 2 for a character beyond the BMP (a tag character). */
  length: number;
  codePoint: number;
  /** `U+202E`. */
  label: string;
  /** The Unicode name (or, for a control character, its alias): `RIGHT-TO-LEFT OVERRIDE`. */
  name: string;
  /** `RLO`, where one is in common use. */
  abbreviation: string | null;
  kind: HiddenCharacterKind;
  /**
   * Whether it is reason to warn. A byte order mark at the very start of a file is shown but not
   * warned about: it is the file's encoding signature, which editors and compilers consume.
   */
  warns: boolean;
}

interface Entry {
  name: string;
  abbreviation?: string;
  kind: HiddenCharacterKind;
}

const named: ReadonlyMap<number, Entry> = new Map<number, Entry>([
  // Bidirectional controls (Unicode Bidi_Control) and marks.
  [0x061c, { name: 'ARABIC LETTER MARK', abbreviation: 'ALM', kind: 'bidi' }],
  [0x200e, { name: 'LEFT-TO-RIGHT MARK', abbreviation: 'LRM', kind: 'bidi' }],
  [0x200f, { name: 'RIGHT-TO-LEFT MARK', abbreviation: 'RLM', kind: 'bidi' }],
  [0x202a, { name: 'LEFT-TO-RIGHT EMBEDDING', abbreviation: 'LRE', kind: 'bidi' }],
  [0x202b, { name: 'RIGHT-TO-LEFT EMBEDDING', abbreviation: 'RLE', kind: 'bidi' }],
  [0x202c, { name: 'POP DIRECTIONAL FORMATTING', abbreviation: 'PDF', kind: 'bidi' }],
  [0x202d, { name: 'LEFT-TO-RIGHT OVERRIDE', abbreviation: 'LRO', kind: 'bidi' }],
  [0x202e, { name: 'RIGHT-TO-LEFT OVERRIDE', abbreviation: 'RLO', kind: 'bidi' }],
  [0x2066, { name: 'LEFT-TO-RIGHT ISOLATE', abbreviation: 'LRI', kind: 'bidi' }],
  [0x2067, { name: 'RIGHT-TO-LEFT ISOLATE', abbreviation: 'RLI', kind: 'bidi' }],
  [0x2068, { name: 'FIRST STRONG ISOLATE', abbreviation: 'FSI', kind: 'bidi' }],
  [0x2069, { name: 'POP DIRECTIONAL ISOLATE', abbreviation: 'PDI', kind: 'bidi' }],
  // Zero-width and other default-ignorable characters: they draw nothing, yet are part of a name.
  [0x00ad, { name: 'SOFT HYPHEN', abbreviation: 'SHY', kind: 'invisible' }],
  [0x034f, { name: 'COMBINING GRAPHEME JOINER', abbreviation: 'CGJ', kind: 'invisible' }],
  [0x115f, { name: 'HANGUL CHOSEONG FILLER', kind: 'invisible' }],
  [0x1160, { name: 'HANGUL JUNGSEONG FILLER', kind: 'invisible' }],
  [0x17b4, { name: 'KHMER VOWEL INHERENT AQ', kind: 'invisible' }],
  [0x17b5, { name: 'KHMER VOWEL INHERENT AA', kind: 'invisible' }],
  [0x180b, { name: 'MONGOLIAN FREE VARIATION SELECTOR ONE', abbreviation: 'FVS1', kind: 'invisible' }],
  [0x180c, { name: 'MONGOLIAN FREE VARIATION SELECTOR TWO', abbreviation: 'FVS2', kind: 'invisible' }],
  [0x180d, { name: 'MONGOLIAN FREE VARIATION SELECTOR THREE', abbreviation: 'FVS3', kind: 'invisible' }],
  [0x180e, { name: 'MONGOLIAN VOWEL SEPARATOR', abbreviation: 'MVS', kind: 'invisible' }],
  [0x180f, { name: 'MONGOLIAN FREE VARIATION SELECTOR FOUR', abbreviation: 'FVS4', kind: 'invisible' }],
  [0x200b, { name: 'ZERO WIDTH SPACE', abbreviation: 'ZWSP', kind: 'invisible' }],
  [0x200c, { name: 'ZERO WIDTH NON-JOINER', abbreviation: 'ZWNJ', kind: 'invisible' }],
  [0x200d, { name: 'ZERO WIDTH JOINER', abbreviation: 'ZWJ', kind: 'invisible' }],
  [0x2060, { name: 'WORD JOINER', abbreviation: 'WJ', kind: 'invisible' }],
  [0x2061, { name: 'FUNCTION APPLICATION', kind: 'invisible' }],
  [0x2062, { name: 'INVISIBLE TIMES', kind: 'invisible' }],
  [0x2063, { name: 'INVISIBLE SEPARATOR', kind: 'invisible' }],
  [0x2064, { name: 'INVISIBLE PLUS', kind: 'invisible' }],
  [0x2065, { name: 'UNASSIGNED FORMAT CHARACTER', kind: 'invisible' }],
  [0x206a, { name: 'INHIBIT SYMMETRIC SWAPPING', kind: 'invisible' }],
  [0x206b, { name: 'ACTIVATE SYMMETRIC SWAPPING', kind: 'invisible' }],
  [0x206c, { name: 'INHIBIT ARABIC FORM SHAPING', kind: 'invisible' }],
  [0x206d, { name: 'ACTIVATE ARABIC FORM SHAPING', kind: 'invisible' }],
  [0x206e, { name: 'NATIONAL DIGIT SHAPES', kind: 'invisible' }],
  [0x206f, { name: 'NOMINAL DIGIT SHAPES', kind: 'invisible' }],
  [0x3164, { name: 'HANGUL FILLER', kind: 'invisible' }],
  [0xfeff, { name: 'ZERO WIDTH NO-BREAK SPACE', abbreviation: 'ZWNBSP', kind: 'invisible' }],
  [0xffa0, { name: 'HALFWIDTH HANGUL FILLER', kind: 'invisible' }],
  [0xfff9, { name: 'INTERLINEAR ANNOTATION ANCHOR', kind: 'invisible' }],
  [0xfffa, { name: 'INTERLINEAR ANNOTATION SEPARATOR', kind: 'invisible' }],
  [0xfffb, { name: 'INTERLINEAR ANNOTATION TERMINATOR', kind: 'invisible' }],
  [0x1d173, { name: 'MUSICAL SYMBOL BEGIN BEAM', kind: 'invisible' }],
  [0x1d174, { name: 'MUSICAL SYMBOL END BEAM', kind: 'invisible' }],
  [0x1d175, { name: 'MUSICAL SYMBOL BEGIN TIE', kind: 'invisible' }],
  [0x1d176, { name: 'MUSICAL SYMBOL END TIE', kind: 'invisible' }],
  [0x1d177, { name: 'MUSICAL SYMBOL BEGIN SLUR', kind: 'invisible' }],
  [0x1d178, { name: 'MUSICAL SYMBOL END SLUR', kind: 'invisible' }],
  [0x1d179, { name: 'MUSICAL SYMBOL BEGIN PHRASE', kind: 'invisible' }],
  [0x1d17a, { name: 'MUSICAL SYMBOL END PHRASE', kind: 'invisible' }],
  // Line breaks most editors do not draw, and some languages do not count.
  [0x2028, { name: 'LINE SEPARATOR', abbreviation: 'LSEP', kind: 'separator' }],
  [0x2029, { name: 'PARAGRAPH SEPARATOR', abbreviation: 'PSEP', kind: 'separator' }],
]);

/** C0 controls by their ISO 6429 aliases (tab, 0x09, is ordinary and never reported). */
const c0: readonly (readonly [string, string])[] = [
  ['NULL', 'NUL'], ['START OF HEADING', 'SOH'], ['START OF TEXT', 'STX'], ['END OF TEXT', 'ETX'],
  ['END OF TRANSMISSION', 'EOT'], ['ENQUIRY', 'ENQ'], ['ACKNOWLEDGE', 'ACK'], ['BELL', 'BEL'],
  ['BACKSPACE', 'BS'], ['CHARACTER TABULATION', 'HT'], ['LINE FEED', 'LF'], ['LINE TABULATION', 'VT'],
  ['FORM FEED', 'FF'], ['CARRIAGE RETURN', 'CR'], ['SHIFT OUT', 'SO'], ['SHIFT IN', 'SI'],
  ['DATA LINK ESCAPE', 'DLE'], ['DEVICE CONTROL ONE', 'DC1'], ['DEVICE CONTROL TWO', 'DC2'], ['DEVICE CONTROL THREE', 'DC3'],
  ['DEVICE CONTROL FOUR', 'DC4'], ['NEGATIVE ACKNOWLEDGE', 'NAK'], ['SYNCHRONOUS IDLE', 'SYN'], ['END OF TRANSMISSION BLOCK', 'ETB'],
  ['CANCEL', 'CAN'], ['END OF MEDIUM', 'EM'], ['SUBSTITUTE', 'SUB'], ['ESCAPE', 'ESC'],
  ['INFORMATION SEPARATOR FOUR', 'FS'], ['INFORMATION SEPARATOR THREE', 'GS'], ['INFORMATION SEPARATOR TWO', 'RS'], ['INFORMATION SEPARATOR ONE', 'US'],
];

/** C1 controls (0x80–0x9F) by their ISO 6429 aliases. CSI and OSC start terminal escape sequences on their own. */
const c1: readonly (readonly [string, string])[] = [
  ['PADDING CHARACTER', 'PAD'], ['HIGH OCTET PRESET', 'HOP'], ['BREAK PERMITTED HERE', 'BPH'], ['NO BREAK HERE', 'NBH'],
  ['INDEX', 'IND'], ['NEXT LINE', 'NEL'], ['START OF SELECTED AREA', 'SSA'], ['END OF SELECTED AREA', 'ESA'],
  ['CHARACTER TABULATION SET', 'HTS'], ['CHARACTER TABULATION WITH JUSTIFICATION', 'HTJ'], ['LINE TABULATION SET', 'VTS'], ['PARTIAL LINE FORWARD', 'PLD'],
  ['PARTIAL LINE BACKWARD', 'PLU'], ['REVERSE LINE FEED', 'RI'], ['SINGLE SHIFT TWO', 'SS2'], ['SINGLE SHIFT THREE', 'SS3'],
  ['DEVICE CONTROL STRING', 'DCS'], ['PRIVATE USE ONE', 'PU1'], ['PRIVATE USE TWO', 'PU2'], ['SET TRANSMIT STATE', 'STS'],
  ['CANCEL CHARACTER', 'CCH'], ['MESSAGE WAITING', 'MW'], ['START OF GUARDED AREA', 'SPA'], ['END OF GUARDED AREA', 'EPA'],
  ['START OF STRING', 'SOS'], ['SINGLE GRAPHIC CHARACTER INTRODUCER', 'SGC'], ['SINGLE CHARACTER INTRODUCER', 'SCI'], ['CONTROL SEQUENCE INTRODUCER', 'CSI'],
  ['STRING TERMINATOR', 'ST'], ['OPERATING SYSTEM COMMAND', 'OSC'], ['PRIVACY MESSAGE', 'PM'], ['APPLICATION PROGRAM COMMAND', 'APC'],
];

const isVariationSelector = (codePoint: number) => (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0xe0100 && codePoint <= 0xe01ef);
const isTag = (codePoint: number) => codePoint >= 0xe0000 && codePoint <= 0xe007f;

/** The characters of an emoji sequence a zero width joiner may sit between: 👩‍💻 is one glyph, not a trick. */
const pictographic = /\p{Extended_Pictographic}/u;
const isEmojiModifier = (codePoint: number) => codePoint === 0xfe0f || (codePoint >= 0x1f3fb && codePoint <= 0x1f3ff);

/** A quick test before the character-by-character look: nearly every line has none of these. */
const candidate =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- the class lists single invisible code points on purpose (controls, joiners, variation selectors); with the u flag each one matches alone.
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/u;

export const codePointLabel = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** Printable ASCII by name, for what a tag character stands for. */
function asciiName(code: number): string {
  const char = String.fromCharCode(code);
  if (char >= 'A' && char <= 'Z') return `LATIN CAPITAL LETTER ${char}`;
  if (char >= 'a' && char <= 'z') return `LATIN SMALL LETTER ${char.toUpperCase()}`;
  if (char >= '0' && char <= '9') return `DIGIT ${['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE'][code - 0x30]}`;
  return `"${char}"`;
}

function entryFor(codePoint: number): Entry | null {
  const known = named.get(codePoint);
  if (known) return known;
  if (codePoint < 0x20 && codePoint !== 0x09) {
    const [name, abbreviation] = c0[codePoint]!;
    return { name, abbreviation, kind: 'control' };
  }
  if (codePoint === 0x7f) return { name: 'DELETE', abbreviation: 'DEL', kind: 'control' };
  if (codePoint >= 0x80 && codePoint <= 0x9f) {
    const [name, abbreviation] = c1[codePoint - 0x80]!;
    return { name, abbreviation, kind: 'control' };
  }
  if (isTag(codePoint)) {
    const ascii = codePoint - 0xe0000;
    if (codePoint === 0xe0001) return { name: 'LANGUAGE TAG', kind: 'invisible' };
    if (codePoint === 0xe007f) return { name: 'CANCEL TAG', kind: 'invisible' };
    if (ascii === 0x20) return { name: 'TAG SPACE', kind: 'invisible' };
    if (ascii > 0x20) return { name: `TAG ${asciiName(ascii)}`, kind: 'invisible' };
    return { name: 'UNASSIGNED TAG CHARACTER', kind: 'invisible' };
  }
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return { name: `VARIATION SELECTOR-${codePoint - 0xfe00 + 1}`, kind: 'invisible' };
  if (codePoint >= 0xe0100 && codePoint <= 0xe01ef) return { name: `VARIATION SELECTOR-${codePoint - 0xe0100 + 17}`, kind: 'invisible' };
  return null;
}

export interface HiddenCharacterOptions {
  /** The text starts the file, so a U+FEFF at its very start is a byte order mark. */
  startOfFile?: boolean;
  /** The text is a line, so a carriage return at its very end is a CRLF line ending (default true). */
  line?: boolean;
}

/**
 * Every hidden character in `text`, in order. Not reported: a tab; a carriage return that ends a line
 * (CRLF); a zero width joiner between two pictographs (an emoji sequence); a single variation selector
 * (emoji presentation, ❤️) — but a run of them, which no text needs and which can smuggle data, is.
 */
export function findHiddenCharacters(text: string, options: HiddenCharacterOptions = {}): HiddenCharacter[] {
  if (!candidate.test(text)) return [];
  const line = options.line ?? true;
  const found: HiddenCharacter[] = [];
  const codePoints = Array.from(text, (char) => char.codePointAt(0)!);
  let index = 0;
  for (let at = 0; at < codePoints.length; at += 1) {
    const codePoint = codePoints[at]!;
    const length = codePoint > 0xffff ? 2 : 1;
    const start = index;
    index += length;
    const entry = entryFor(codePoint);
    if (!entry) continue;
    if (codePoint === 0x0d && line && at === codePoints.length - 1) continue;
    if (codePoint === 0x200d && joinsPictographs(codePoints, at)) continue;
    if (codePoint >= 0xfe00 && codePoint <= 0xfe0f && !(at > 0 && isVariationSelector(codePoints[at - 1]!))) continue;
    const byteOrderMark = codePoint === 0xfeff && start === 0 && options.startOfFile === true;
    found.push({
      index: start,
      length,
      codePoint,
      label: codePointLabel(codePoint),
      name: byteOrderMark ? 'BYTE ORDER MARK' : entry.name,
      abbreviation: byteOrderMark ? 'BOM' : (entry.abbreviation ?? null),
      kind: entry.kind,
      warns: !byteOrderMark,
    });
  }
  return found;
}

function joinsPictographs(codePoints: readonly number[], at: number): boolean {
  let before = at - 1;
  while (before >= 0 && isEmojiModifier(codePoints[before]!)) before -= 1;
  const previous = codePoints[before];
  const next = codePoints[at + 1];
  return previous !== undefined && next !== undefined && pictographic.test(String.fromCodePoint(previous)) && pictographic.test(String.fromCodePoint(next));
}

export const hasHiddenCharacters = (text: string, options?: HiddenCharacterOptions) =>
  findHiddenCharacters(text, options).some((character) => character.warns);

export type HiddenTextSegment =
  | { kind: 'text'; text: string }
  /** One hidden character, or a run of tag characters (they spell ASCII text, so they read as one). */
  | { kind: 'hidden'; characters: HiddenCharacter[] };

/** `text` cut at its hidden characters, for showing each one visibly in place of the character. */
export function splitAtHiddenCharacters(text: string, characters: readonly HiddenCharacter[]): HiddenTextSegment[] {
  const segments: HiddenTextSegment[] = [];
  let from = 0;
  for (const character of characters) {
    if (character.index > from) segments.push({ kind: 'text', text: text.slice(from, character.index) });
    const last = segments.at(-1);
    if (last?.kind === 'hidden' && character.index === from && isTag(character.codePoint) && isTag(last.characters.at(-1)!.codePoint)) {
      last.characters.push(character);
    } else {
      segments.push({ kind: 'hidden', characters: [character] });
    }
    from = character.index + character.length;
  }
  if (from < text.length) segments.push({ kind: 'text', text: text.slice(from) });
  return segments;
}

const kindNotes: Record<HiddenCharacterKind, string> = {
  bidi: 'a bidirectional control: it changes the order in which the text around it is shown',
  invisible: 'an invisible character: it shows as nothing, yet is part of the text',
  separator: 'an invisible line break: some editors and languages treat it as a new line, others do not',
  control: 'a control character: printed to a terminal, it can move the cursor or rewrite what is shown',
};

/** `right-to-left override`, for a sentence. */
export const characterWords = (character: Pick<HiddenCharacter, 'name'>) => character.name.toLowerCase();

/** What a badge for a hidden segment says: its text, its tooltip and its accessible name. */
export function describeHiddenSegment(characters: readonly HiddenCharacter[]): { badge: string; title: string; label: string } {
  const first = characters[0]!;
  if (characters.length > 1 && isTag(first.codePoint)) {
    const spelled = characters.map((character) => (character.codePoint > 0xe0020 && character.codePoint < 0xe007f ? String.fromCharCode(character.codePoint - 0xe0000) : character.codePoint === 0xe0020 ? ' ' : '?')).join('');
    const range = `${first.label}–${characters.at(-1)!.label}`;
    return {
      badge: `${characters.length} tags “${spelled}”`,
      title: `${characters.length} invisible tag characters (${range}) that spell “${spelled}”`,
      label: `${characters.length} invisible tag characters spelling “${spelled}”`,
    };
  }
  const abbreviation = first.abbreviation ? ` (${first.abbreviation})` : '';
  const note = first.warns ? kindNotes[first.kind] : 'the encoding signature at the start of the file, which editors and compilers read and drop';
  return {
    badge: first.label,
    title: `${first.label} ${first.name}${abbreviation}: ${note}`,
    label: `${first.label} ${characterWords(first)}`,
  };
}
