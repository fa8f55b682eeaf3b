import { describe, expect, it } from 'vitest';
import { cleanLine, LineSplitter, stripAnsi } from './line-splitter';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('LineSplitter', () => {
  it('yields complete lines and holds back the unfinished one', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('{"type":"turn.started"}\r\n{"type":"thread'))).toEqual(['{"type":"turn.started"}']);
    expect(splitter.push(bytes('.started","thread_id":"t1"}\r\n'))).toEqual(['{"type":"thread.started","thread_id":"t1"}']);
    expect(splitter.flush()).toEqual([]);
  });

  it('accepts plain \\n as well as the PTY\'s \\r\\n, and yields empty lines as empty strings', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('a\nb\r\n\r\nc\n'))).toEqual(['a', 'b', '', 'c']);
  });

  it('keeps a \\r\\n split across chunks as one line end', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('line one\r'))).toEqual([]);
    expect(splitter.push(bytes('\nline two\r\n'))).toEqual(['line one', 'line two']);
  });

  it('keeps multi-byte UTF-8 characters that are split across chunks', () => {
    const encoded = bytes('{"text":"naïve → café 日本 🎉"}\n');
    const splitter = new LineSplitter();
    const lines: string[] = [];
    // Feed one byte at a time: every multi-byte character is split.
    for (const byte of encoded) lines.push(...splitter.push(new Uint8Array([byte])));
    expect(lines).toEqual(['{"text":"naïve → café 日本 🎉"}']);
  });

  it('strips ANSI escapes, also one split across chunks, before the line is parsed', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('\u001b[31mGemini CLI is not running in a trusted directory.\u001b['))).toEqual([]);
    expect(splitter.push(bytes('0m\r\n\u001b]0;title\u0007{"type":"init"}\r\n'))).toEqual([
      'Gemini CLI is not running in a trusted directory.',
      '{"type":"init"}',
    ]);
  });

  it('returns the last line without a newline on flush', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('{"type":"result"}'))).toEqual([]);
    expect(splitter.flush()).toEqual(['{"type":"result"}']);
    expect(splitter.flush()).toEqual([]);
  });

  it('flushes an incomplete trailing character as a replacement rather than dropping the line', () => {
    const splitter = new LineSplitter();
    splitter.push(new Uint8Array([0x61, 0xe2, 0x82]));
    expect(splitter.flush()).toEqual(['a\ufffd']);
  });

  it('emits an endless line in bounded pieces', () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push(bytes('x'.repeat(25)))).toEqual(['x'.repeat(10), 'x'.repeat(10)]);
    expect(splitter.flush()).toEqual(['x'.repeat(5)]);
  });
});

describe('cleanLine', () => {
  it('keeps what a spinner left on screen after carriage returns', () => {
    expect(cleanLine('Loading… \rLoading…\r{"type":"init"}')).toBe('{"type":"init"}');
    expect(cleanLine('done\r')).toBe('done');
  });

  it('removes colour, cursor and OSC sequences', () => {
    expect(stripAnsi('\u001b[1m\u001b[32m✓\u001b[39m\u001b[22m ok \u001b[2K\u001b[1G')).toBe('✓ ok ');
    expect(stripAnsi('\u001b]8;;https://example.com\u001b\\link\u001b]8;;\u001b\\')).toBe('link');
    expect(stripAnsi('\u001b(Bplain')).toBe('plain');
  });
});
