import { eventParserFor } from '../definitions';
import type { ParserState, TimelineEvent } from './timeline-event';
import { isObject, newParserState, raw, takePendingMessage } from './timeline-event';

/**
 * One cleaned output line (see LineSplitter) → zero or more timeline events. A line that is not a
 * JSON object with a string `type`, or whose shape the parser does not know, comes back as `raw`;
 * only blank lines and known-but-redundant events (streaming deltas, lifecycle markers) yield none.
 * Pass one `state` per attempt so tool results can be paired with their calls. Each format's parser
 * is the definition's that prints it (definitions.ts); `text` has none.
 */
export function parseEventLine(format: string, line: string, state: ParserState = newParserState()): TimelineEvent[] {
  const trimmed = line.trim();
  if (trimmed === '') return [];
  const parse = eventParserFor(format);
  if (!parse || !trimmed.startsWith('{')) return [raw(line)];
  let event: unknown;
  try {
    event = JSON.parse(trimmed);
  } catch {
    return [raw(line)];
  }
  if (!isObject(event) || typeof event.type !== 'string') return [raw(line)];
  try {
    return parse(event, trimmed, state);
  } catch {
    // A parser bug or a shape it did not foresee must not lose the line.
    return [raw(line)];
  }
}

export interface EventParser {
  parseLine(line: string): TimelineEvent[];
  /** At the end of the attempt's output: what was still being assembled (a streamed message). */
  flush(): TimelineEvent[];
}

/** A parser bound to one attempt's stream, in a definition's format (`events.format`). */
export function createEventParser(format: string): EventParser {
  const state = newParserState();
  return { parseLine: (line) => parseEventLine(format, line, state), flush: () => takePendingMessage(state) };
}
