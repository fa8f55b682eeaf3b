import { z } from 'zod';
import {
  channels,
  isChannelName,
  maxRequestBytes,
  type ChannelName,
  type ChannelOutput,
  type ChannelParsedInput,
  type ResponseEnvelope,
} from '../../shared/contract';
import type { ClientChannel } from '../events/client-channel';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { freeSpaceAdvice, isDiskFullError } from '../platform/disk-space';
import { describeError, detailsInLog, type Logger } from '../platform/log';

export interface HandlerContext {
  client: ClientChannel | undefined;
  /** Which transport the request came by: the app a page runs in (the Electron app, or a browser). */
  transport: RequestMeta['transport'];
}

/** One channel's handler, given input already validated by the contract. */
export type Handler<K extends ChannelName> = (input: ChannelParsedInput<K>, context: HandlerContext) => Promise<ChannelOutput<K>> | ChannelOutput<K>;

/** What the core implements: one handler per channel (electron/handlers/core-handlers.ts). */
export type CoreHandlers = { [K in ChannelName]: Handler<K> };

/**
 * The handlers of one channel file of the contract (shared/channels/<domain>.ts, given as its
 * `typeof`): one for each channel it declares, and, written as an object literal, nothing else.
 */
export type ChannelHandlers<C> = { [K in keyof C]: K extends ChannelName ? Handler<K> : never };

export interface RequestMeta {
  /**
   * 'electron': the desktop app (over IPC, or over the console service's socket); 'service-socket':
   * another client of that socket (`npm run serve`, a Node client).
   */
  transport: 'electron' | 'browser' | 'service-socket';
  /** Size of the request as received, in bytes, when the transport knows it. */
  sizeBytes?: number;
  /** The client the request came from, for requests that open a stream to it. */
  client?: ClientChannel;
}

export type RequestDispatcher = (channel: unknown, input: unknown, meta: RequestMeta) => Promise<ResponseEnvelope>;

function fail(error: OperatorErrorShape): ResponseEnvelope {
  return { ok: false, error };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

/**
 * The one place where both transports hand requests to the core. It checks the channel and the
 * payload against the contract, runs the handler, checks the answer against the output schema (which
 * also strips anything undeclared), and turns every failure into an error value with a stable code.
 * A bad request is logged once, here, and never reaches a handler or the ledger.
 */
export interface RequestDispatcherOptions {
  /**
   * Names an unexpected failure the operator can act on (a damaged ledger), instead of `internal`.
   * Called only with errors that are not already an OperatorError; undefined leaves it internal.
   */
  explainFailure?: ((error: unknown) => OperatorError | undefined) | undefined;
}

export function createRequestDispatcher(handlers: CoreHandlers, log: Logger, options: RequestDispatcherOptions = {}): RequestDispatcher {
  return async (channel, rawInput, meta) => {
    if (!isChannelName(channel)) {
      const shape: OperatorErrorShape = {
        code: 'unknown_channel',
        message: `There is no request channel named ${JSON.stringify(String(channel)).slice(0, 120)}.`,
      };
      log.warn('request refused', { transport: meta.transport, code: shape.code, channel: String(channel).slice(0, 120) });
      return fail(shape);
    }
    const size = meta.sizeBytes ?? Buffer.byteLength(JSON.stringify(rawInput ?? null) ?? '', 'utf8');
    if (size > maxRequestBytes) {
      const shape: OperatorErrorShape = {
        code: 'payload_too_large',
        message: `The request to ${channel} is ${size} bytes; the limit is ${maxRequestBytes} bytes.`,
      };
      log.warn('request refused', { transport: meta.transport, code: shape.code, channel, size });
      return fail(shape);
    }
    const spec = channels[channel];
    const parsed = spec.input.safeParse(rawInput);
    if (!parsed.success) {
      const shape: OperatorErrorShape = {
        code: 'invalid_request',
        message: `The request to ${channel} is not valid: ${describeIssues(parsed.error)}.`,
      };
      log.warn('request refused', { transport: meta.transport, code: shape.code, channel });
      return fail(shape);
    }
    try {
      const handler = handlers[channel] as (input: unknown, context: HandlerContext) => unknown;
      const value = await handler(parsed.data, { client: meta.client, transport: meta.transport });
      const checked = spec.output.safeParse(value);
      if (!checked.success) {
        log.error('handler answered outside the contract', { channel, issues: describeIssues(checked.error) });
        return fail({ code: 'internal', message: `The console could not complete this request. ${detailsInLog(log)}` });
      }
      return { ok: true, value: checked.data };
    } catch (error) {
      if (error instanceof OperatorError) {
        log.info('request answered with an error', { transport: meta.transport, channel, code: error.code });
        return fail(error.toShape());
      }
      if (isDiskFullError(error)) {
        // Not a bug: the ledger (or a file) could not be written for want of space. Nothing was saved.
        log.warn('request failed: the disk is full', { transport: meta.transport, channel, error: String(error) });
        return fail({
          code: 'disk_full',
          message: `The console could not save this: the disk of its data directory is full. ${freeSpaceAdvice}, then try again.`,
          actionUrl: actionRoute({ kind: 'cleanup' }),
        });
      }
      log.error('request failed unexpectedly', {
        transport: meta.transport,
        channel,
        error: describeError(error),
      });
      const explained = options.explainFailure?.(error);
      if (explained) return fail(explained.toShape());
      return fail({ code: 'internal', message: `The console could not complete this request. ${detailsInLog(log)}` });
    }
  };
}
