import type { EventFormat } from '../catalog';
import { parseClaudeCodeEvent } from './claude-code-events';
import { parseCodexEvent } from './codex-events';
import { parseGeminiCliEvent } from './gemini-cli-events';
import { parsePiEvent } from './pi-events';
import type { JsonObject, ParserState, TimelineEvent } from './timeline-event';
import { isObject, newParserState, raw, takePendingMessage } from './timeline-event';

type FormatParser = (event: JsonObject, line: string, state: ParserState) => TimelineEvent[];

const parsers: Record<Exclude<EventFormat, 'text'>, FormatParser> = {
  'codex-jsonl': parseCodexEvent,
  'claude-stream-json': parseClaudeCodeEvent,
  'pi-json': parsePiEvent,
  'gemini-stream-json': parseGeminiCliEvent,
};

/**
 * One cleaned output line (see LineSplitter) → zero or more timeline events. A line that is not a
 * JSON object with a string `type`, or whose shape the parser does not know, comes back as `raw`;
 * only blank lines and known-but-redundant events (streaming deltas, lifecycle markers) yield none.
 * Pass one `state` per attempt so tool results can be paired with their calls.
 */
export function parseEventLine(format: EventFormat, line: string, state: ParserState = newParserState()): TimelineEvent[] {
  const trimmed = line.trim();
  if (trimmed === '') return [];
  if (format === 'text' || !trimmed.startsWith('{')) return [raw(line)];
  let event: unknown;
  try {
    event = JSON.parse(trimmed);
  } catch {
    return [raw(line)];
  }
  if (!isObject(event) || typeof event.type !== 'string') return [raw(line)];
  try {
    return parsers[format](event, trimmed, state);
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

/** A parser bound to one attempt's stream. */
export function createEventParser(format: EventFormat): EventParser {
  const state = newParserState();
  return { parseLine: (line) => parseEventLine(format, line, state), flush: () => takePendingMessage(state) };
}
