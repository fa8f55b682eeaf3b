import { z } from 'zod';

/** The failure taxonomy (DESIGN.md section 3): every failed attempt gets exactly one of these. */
export const failureTaxonomy = [
  'process_exit',
  'spawn_failed',
  'auth_required',
  'auth_expired',
  'quota_exhausted',
  'rate_limited',
  'ai_connection_busy',
  'sandbox_unavailable',
  'configuration_incomplete',
  // The project's setup command failed: the agent never started (owner action).
  'setup_failed',
  // The data directory's disk is full: a run's output could not be stored, or a new run was refused
  // up front while free space is under the console's threshold (owner action: free space).
  'disk_full',
  'cancelled',
  'stranded',
] as const;

/**
 * Stable error codes. The UI, tests and operators' scripts match on these, so a code, once shipped,
 * keeps its meaning. Add new codes; never repurpose one.
 */
export const errorCodes = [
  // Transport and validation: the request never reached the domain.
  'invalid_request',
  'unknown_channel',
  'payload_too_large',
  'malformed_message',
  'unauthorized',
  'forbidden_origin',
  'forbidden_sender',
  'disconnected',
  // The console service's local socket: a client must say hello first, and in the service's versions
  // (shared/service-hello.ts); a mismatch names the version running and the two ways on.
  'hello_required',
  'service_version_mismatch',
  // The service finishes its runs before another version takes over: it starts and resumes no run meanwhile.
  'service_handing_over',
  // Domain.
  'not_found',
  'conflict',
  'path_not_found',
  'not_a_directory',
  'path_not_readable',
  'project_exists',
  // A variable layer names a variable the console sets itself (HOME, TMPDIR, the proxy, a delivered key).
  'reserved_variable',
  // Another change to the same run (landing it, committing, pushing, discarding, cleaning up, archiving,
  // deleting) is under way: the request is refused, not queued; `reason` names the operation in flight.
  'run_busy',
  // git refused or failed; `reason` names the case (electron/git/git-errors.ts) and the message the fix.
  'git_failed',
  // The ledger file cannot be read (not a database, or a page of it is corrupt): the message names the
  // file, its newest backup and how to restore it (electron/ledger/ledger-damage.ts).
  'ledger_damaged',
  // The system ssh could not reach or log in to a host, or the host's answer was not what the console
  // asked for; `reason` names the case (electron/hosts/ssh-failure.ts) and the message the fix.
  'ssh_failed',
  // The failure taxonomy (DESIGN.md section 3): every failed attempt and refused run gets one.
  ...failureTaxonomy,
  // Anything unexpected. The message is generic; details go to the log, never to the UI.
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** The one error shape both transports answer with. */
export const operatorErrorSchema = z.object({
  code: z.enum(errorCodes),
  message: z.string(),
  reason: z.string().optional(),
  actionUrl: z.string().optional(),
});

export type OperatorErrorShape = z.infer<typeof operatorErrorSchema>;

/** An error as a value: thrown inside the core, sent as a shape, rethrown as this in the renderer. */
export class OperatorError extends Error {
  readonly code: ErrorCode;
  readonly reason?: string;
  readonly actionUrl?: string;

  constructor(shape: OperatorErrorShape) {
    super(shape.message);
    this.name = 'OperatorError';
    this.code = shape.code;
    if (shape.reason !== undefined) this.reason = shape.reason;
    if (shape.actionUrl !== undefined) this.actionUrl = shape.actionUrl;
  }

  toShape(): OperatorErrorShape {
    const shape: OperatorErrorShape = { code: this.code, message: this.message };
    if (this.reason !== undefined) shape.reason = this.reason;
    if (this.actionUrl !== undefined) shape.actionUrl = this.actionUrl;
    return shape;
  }
}

export function isOperatorError(value: unknown): value is OperatorError {
  return value instanceof OperatorError;
}
