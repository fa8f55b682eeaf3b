import { randomUUID } from 'node:crypto';

/** Ids carry their kind (`prj_…`, `run_…`) so a stray id in a log or URL says what it names. */
export function newId(prefix: 'prj' | 'tsk' | 'agt' | 'env' | 'con' | 'run' | 'att' | 'ntc' | 'bgt' | 'hst'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

export function isoNow(ms: number): string {
  return new Date(ms).toISOString();
}
