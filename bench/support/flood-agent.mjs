#!/usr/bin/env node
/**
 * A flooding agent for the output benchmarks: prints text lines as fast as the terminal takes them for
 * --duration-ms, then exits. Lines are plain ASCII; a PTY and a viewer see what `cat` of a log would give.
 */
import { writeSync } from 'node:fs';

const at = process.argv.indexOf('--duration-ms');
const durationMs = at === -1 ? 5000 : Number(process.argv[at + 1]);
const line = 'flood 0123456789 the quick brown fox jumps over the lazy dog abcdefghijabcdefghijabcdefghij\n';
const block = line.repeat(Math.ceil(65536 / line.length));
const until = performance.now() + durationMs;
while (performance.now() < until) writeSync(1, block);
