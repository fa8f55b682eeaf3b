import { afterEach, describe, expect, it } from 'vitest';
import { OutputPipeline, type PtyOutputSource } from '../pty/output-pipeline';
import type { PtyExit } from '../pty/pty-session';
import { openTestRunLedger, type TestRunLedger } from '../testing/output-test-kit';
import { SecretRedactor, redactionMarker } from './secret-redaction';

const secret = 'sk-test-SECRETVALUE-0123456789';

function streamThrough(redactor: SecretRedactor, parts: string[]): string {
  const out = parts.map((part) => redactor.push(Buffer.from(part, 'utf8')));
  out.push(redactor.flush());
  return Buffer.concat(out).toString('utf8');
}

describe('the secret redactor', () => {
  it('cuts a secret out wherever two reads split it', () => {
    const text = `key is ${secret}, and again ${secret}!\n`;
    for (let at = 0; at <= text.length; at += 1) {
      const redacted = streamThrough(new SecretRedactor([secret]), [text.slice(0, at), text.slice(at)]);
      expect(redacted, `split at ${at}`).toBe(`key is ${redactionMarker}, and again ${redactionMarker}!\n`);
    }
    // One byte at a time, the worst case.
    expect(streamThrough(new SecretRedactor([secret]), [...text])).toBe(`key is ${redactionMarker}, and again ${redactionMarker}!\n`);
  });

  it('holds back only a tail that could start a secret, and gives it back at the end', () => {
    const redactor = new SecretRedactor([secret]);
    expect(redactor.push(Buffer.from('Password: ')).toString()).toBe('Password: ');
    expect(redactor.push(Buffer.from('ready sk-te')).toString()).toBe('ready ');
    expect(redactor.push(Buffer.from('a party')).toString()).toBe('sk-tea party');
    expect(redactor.push(Buffer.from('tail sk-')).toString()).toBe('tail ');
    expect(redactor.flush().toString()).toBe('sk-');
  });

  it('cuts every delivered secret, the longest first, and leaves too-short values alone', () => {
    const inner = 'ABCDEFGHIJ';
    const outer = `xx${inner}yy`;
    const redactor = new SecretRedactor([inner, outer, 'abc']);
    expect(streamThrough(redactor, [`${outer} ${inner} abc`])).toBe(`${redactionMarker} ${redactionMarker} abc`);
  });

  it('redacts strings, nested values and keys of timeline entries', () => {
    const redactor = new SecretRedactor([secret]);
    expect(redactor.redactValue({ text: `echo ${secret}`, list: [secret, 1], [secret]: true })).toEqual({
      text: `echo ${redactionMarker}`,
      list: [redactionMarker, 1],
      [redactionMarker]: true,
    });
  });
});

/** A PTY stand-in that delivers exactly the reads a test gives it. */
function scriptedSession() {
  let onData: (bytes: Buffer) => void = () => {};
  let onExit: (exit: PtyExit) => void = () => {};
  const session: PtyOutputSource = {
    onData: (listener) => ((onData = listener), () => {}),
    onExit: (listener) => ((onExit = listener), () => {}),
    pause: () => {},
    resume: () => {},
  };
  return { session, read: (text: string) => onData(Buffer.from(text, 'utf8')), exit: () => onExit({ exitCode: 0, signal: null }) };
}

const ledgers: TestRunLedger[] = [];
afterEach(() => ledgers.splice(0).forEach((ledger) => ledger.close()));

describe('the output pipeline with a redactor', () => {
  it('never writes or shows a secret split across two PTY reads, and keeps offsets consistent', async () => {
    const test = openTestRunLedger();
    ledgers.push(test);
    const { runId, attemptId } = test.createRun();
    const pty = scriptedSession();
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output: test.ledger.output, redactor: new SecretRedactor([secret]) });
    const seen: Buffer[] = [];
    const offsets: number[] = [];
    pipeline.feed.onBatch((batch) => {
      offsets.push(batch.offset);
      seen.push(Buffer.from(batch.bytes));
    });

    pty.read('OPENAI_API_KEY=sk-test-SECRET');
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first half is cut into its own batch
    pty.read('VALUE-0123456789\r\ndone sk-');
    await new Promise((resolve) => setTimeout(resolve, 20));
    pty.exit();
    const { endOffset } = await pipeline.whenFinished();

    const expected = `OPENAI_API_KEY=${redactionMarker}\r\ndone sk-`;
    const stored = Buffer.from(test.ledger.output.read(runId, 0, endOffset).bytes).toString('utf8');
    expect(stored).toBe(expected);
    expect(Buffer.concat(seen).toString('utf8')).toBe(expected);
    expect(endOffset).toBe(Buffer.byteLength(expected));
    // Each batch starts where the one before ended: one redacted byte stream for the ledger and viewers.
    let next = 0;
    seen.forEach((bytes, index) => {
      expect(offsets[index]).toBe(next);
      next += bytes.length;
    });
    expect(stored).not.toContain('SECRET');
  });
});
