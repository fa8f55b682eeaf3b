#!/usr/bin/env node
/**
 * A chatty agent for the output benchmarks: every --interval-ms it prints one line that carries the
 * time it was written, "T=<ms since the epoch, 3 decimals>;", padded to --line-bytes, for --duration-ms,
 * then exits. A viewer that reads the line back knows how long it took to arrive.
 */
import { writeSync } from 'node:fs';

/** @param {string} name @param {number} fallback */
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const intervalMs = option('interval-ms', 10);
const durationMs = option('duration-ms', 5000);
const lineBytes = option('line-bytes', 100);
const now = () => performance.timeOrigin + performance.now();

const until = now() + durationMs;
const timer = setInterval(() => {
  const at = now();
  if (at >= until) {
    clearInterval(timer);
    return;
  }
  const stamp = `T=${at.toFixed(3)};`;
  writeSync(1, `${stamp}${'.'.repeat(Math.max(0, lineBytes - stamp.length - 1))}\n`);
}, intervalMs);
