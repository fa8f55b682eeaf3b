import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ChannelOutput, ChannelParsedInput } from '../../shared/contract';
import { OperatorError } from '../../shared/errors';
import { openInFileManager } from '../platform/file-manager';
import { noLogFile, type Logger } from '../platform/log';
import type { EventHub } from '../events/event-hub';

export interface SystemServiceOptions {
  appVersion: string;
  transport: 'electron' | 'browser';
  dataDir: string;
  ledgerFile: string;
  /** The operator's home as runs see it (Settings → About names it; Browse… starts there). */
  operatorHome: string;
  log: Logger;
  /** The clock the renderer-error rate limit reads. Default: Date.now. */
  now?: (() => number) | undefined;
  /** Where a change of the service's state is told (serviceStateChanged). */
  events?: Pick<EventHub, 'emit'> | undefined;
}

/** A page that crashes on every render must not flood the log: a few reports a minute are plenty. */
const rendererErrorsPerMinute = 10;

/** The console itself: what it runs on, where its log and data are, and the crash reports of its pages. */
export class SystemService {
  private readonly rendererErrors: SlidingMinuteLimit;
  private handingOverTo: string | null = null;

  constructor(private readonly options: SystemServiceOptions) {
    this.rendererErrors = new SlidingMinuteLimit(rendererErrorsPerMinute, options.now ?? Date.now);
  }

  /** `transport`: the app asking (one console service serves the desktop app and browsers at once). */
  info(transport: 'electron' | 'browser' = this.options.transport): ChannelOutput<'getSystemInfo'> {
    const { options } = this;
    return {
      appVersion: options.appVersion,
      transport,
      dataDir: options.dataDir,
      ledgerPath: options.ledgerFile,
      platform: process.platform,
      homeDir: options.operatorHome,
    };
  }

  /** What the page says of the console service it is served by: its version, and a handover under way. */
  serviceState(): ChannelOutput<'getServiceState'> {
    return { consoleVersion: this.options.appVersion, handingOverTo: this.handingOverTo };
  }

  /**
   * The console service finishes its runs, takes no new one, and then hands over to `version`
   * (electron/service/console-service.ts): every page is told, and says so.
   */
  handOverTo(version: string): void {
    this.handingOverTo = version;
    this.options.events?.emit('serviceStateChanged', {});
  }

  logInfo(): ChannelOutput<'getLogInfo'> {
    const logFile = this.options.log.file ?? null;
    return { logFile, logDir: logFile ? path.dirname(logFile) : null };
  }

  async openLogFolder(): Promise<ChannelOutput<'openLogFolder'>> {
    const logFile = this.options.log.file;
    if (!logFile) throw new OperatorError({ code: 'not_found', message: noLogFile });
    const logDir = path.dirname(logFile);
    // Rotation never removes the folder, but an operator might have: open an empty one rather than fail.
    mkdirSync(logDir, { recursive: true, mode: 0o700 });
    return { path: logDir, opened: await openInFileManager(logDir) };
  }

  async openDataFolder(): Promise<ChannelOutput<'openDataFolder'>> {
    const { dataDir } = this.options;
    return { path: dataDir, opened: await openInFileManager(dataDir) };
  }

  /** A page's crash, written to the log unless this minute already had its share. */
  reportRendererError(input: ChannelParsedInput<'reportRendererError'>): ChannelOutput<'reportRendererError'> {
    if (!this.rendererErrors.allow()) return { logged: false };
    // `error`, not `message`: the line's own message says what this is.
    this.options.log.error('a page of the console crashed', {
      transport: this.options.transport,
      route: input.route,
      error: input.message,
      stack: input.stack,
      componentStack: input.componentStack,
    });
    return { logged: true };
  }
}

/** At most `perMinute` calls allowed in any sliding minute. */
class SlidingMinuteLimit {
  private readonly times: number[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  allow(): boolean {
    const now = this.now();
    while (this.times.length > 0 && now - this.times[0]! > 60_000) this.times.shift();
    if (this.times.length >= this.perMinute) return false;
    this.times.push(now);
    return true;
  }
}
