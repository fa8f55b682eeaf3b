import { describe, expect, it } from 'vitest';
import { eventFormats } from '../definitions';
import { parseEventLine } from './parse-event-line';
import { maxTextLength } from './timeline-event';

describe('parseEventLine', () => {
  it('never drops a line it cannot read: not JSON, not an object, no type', () => {
    for (const format of eventFormats) {
      expect(parseEventLine(format, 'Reading additional input from stdin...')).toEqual([{ kind: 'raw', text: 'Reading additional input from stdin...' }]);
      expect(parseEventLine(format, '{"type":"init", broken')).toEqual([{ kind: 'raw', text: '{"type":"init", broken' }]);
      expect(parseEventLine(format, '[1,2,3]')).toEqual([{ kind: 'raw', text: '[1,2,3]' }]);
      expect(parseEventLine(format, '{"no_type":true}')).toEqual([{ kind: 'raw', text: '{"no_type":true}' }]);
    }
  });

  it('yields nothing for blank lines', () => {
    expect(parseEventLine('codex-jsonl', '')).toEqual([]);
    expect(parseEventLine('text', '   ')).toEqual([]);
  });

  it('treats every line of a plain-text command as raw, JSON or not', () => {
    expect(parseEventLine('text', '{"type":"thread.started","thread_id":"t"}')).toEqual([{ kind: 'raw', text: '{"type":"thread.started","thread_id":"t"}' }]);
  });

  it('falls back to raw when a known type has an unexpected shape', () => {
    expect(parseEventLine('codex-jsonl', '{"type":"thread.started","thread_id":42}')).toEqual([
      { kind: 'raw', text: '{"type":"thread.started","thread_id":42}' },
    ]);
    expect(parseEventLine('claude-stream-json', '{"type":"assistant","message":"oops"}')).toEqual([
      { kind: 'raw', text: '{"type":"assistant","message":"oops"}' },
    ]);
  });

  it('clips very long text so the timeline stays small', () => {
    const long = 'x'.repeat(maxTextLength + 50);
    const [event] = parseEventLine('text', long);
    expect(event?.kind).toBe('raw');
    expect(event?.kind === 'raw' && event.text.endsWith('… [50 more characters]')).toBe(true);
  });
});
