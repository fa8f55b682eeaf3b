#!/usr/bin/env node
// The static call trace of one entry point through the core.
//
//   npm run -s trace -- <file> <function-or-method name> [--then <file>:<name> ...] [--depth N] [--list] [--files]
//
// Walks the TypeScript language service's call hierarchy depth first from the named function, into
// every function of electron/ and shared/ it calls (each function once, in source order), and prints
// how the walk moves through files: the stops (each time the walk is in a different file than the step
// before: a call into a file, or a return to one), the files crossed, and the returns to a file already
// left. It measures how much of the code base one reader must hold to follow one entry point. Calls
// made through a callback or an interface's property are not seen by the call hierarchy (say so when
// comparing), and tests are left out. `--depth N` stops N calls below the entry point (what a reader
// follows before trusting a callee by its name); `--files` lists the files the walk enters most often. `--then file:name` walks a function the entry point
// calls through a value the call hierarchy cannot follow (a list of steps, a callback) as if the entry
// point called it directly, after its own calls; repeat it for each, in the order they are called.
//
// The attempt of a run (issue 26), before and after its pipeline:
//   npm run -s trace -- electron/runs/attempt-runner.ts run                      (before)
//   npm run -s trace -- electron/runs/attempt/attempt-steps.ts run \
//     --then electron/runs/attempt/prepare-task-root.ts:prepareTaskRoot ... --then electron/runs/attempt/judge.ts:judge   (after)
import path from 'node:path';
import fs from 'node:fs';
import ts from 'typescript';

const [fileArg, name, ...flags] = process.argv.slice(2);
const depthFlag = flags.indexOf('--depth');
const maxDepth = depthFlag >= 0 ? Number(flags[depthFlag + 1]) : Infinity;
/** The functions called through values, as [file, name]. */
const then = flags.flatMap((flag, i) => (flag === '--then' ? [String(flags[i + 1]).split(':')] : []));
if (!fileArg || !name) {
  console.error('usage: node scripts/call-trace.mjs <file> <function name> [--then <file>:<name> ...] [--depth N] [--list]');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const configPath = path.join(root, 'tsconfig.node.json');
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
if (!parsed) throw new Error('tsconfig.node.json could not be read');
const { fileNames: files, options } = parsed;
/** @type {import('typescript').LanguageServiceHost} */
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (f) => ts.sys.fileExists(f),
  readFile: (f) => ts.sys.readFile(f),
  readDirectory: (...args) => ts.sys.readDirectory(...args),
  directoryExists: (d) => ts.sys.directoryExists(d),
  getDirectories: (d) => ts.sys.getDirectories(d),
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
/** @param {string} f */
const inProject = (f) => /\/(electron|shared)\//.test(f) && !/\.(test|fixture)\.ts$|test-fixtures|\/testing\//.test(f) && !f.includes('node_modules');

/**
 * Where the function `wanted` is declared in `relativeFile`.
 * @param {string} relativeFile
 * @param {string} wanted
 */
function declaration(relativeFile, wanted) {
  const file = path.resolve(root, relativeFile);
  const source = service.getProgram()?.getSourceFile(file);
  if (!source) throw new Error(`${relativeFile} is not in tsconfig.node.json`);
  let pos = -1;
  /** @param {import('typescript').Node} node */
  const find = (node) => {
    if (pos >= 0) return;
    const named = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isVariableDeclaration(node) ? node.name : undefined;
    if (named && named.getText(source) === wanted) pos = named.getStart(source);
    ts.forEachChild(node, find);
  };
  find(source);
  if (pos < 0) throw new Error(`no function ${wanted} in ${relativeFile}`);
  return { file, pos };
}
const { file: start, pos: startPos } = declaration(fileArg, name);

const visited = new Set();
/** @type {string[]} the file the walk is in, step by step */
const walk = [];
/** @type {string[]} */
const list = [];
/**
 * @param {string} file
 * @param {number} pos
 * @param {number} depth
 * @param {string} label
 */
function visit(file, pos, depth, label) {
  const key = `${file}:${pos}`;
  if (visited.has(key)) return;
  visited.add(key);
  walk.push(file);
  list.push(`${'  '.repeat(depth)}${label} (${path.relative(root, file)})`);
  if (depth >= maxDepth) return;
  const outgoing = service.provideCallHierarchyOutgoingCalls(file, pos) ?? [];
  const calls = outgoing
    .filter((call) => inProject(call.to.file))
    .sort((a, b) => (a.fromSpans[0]?.start ?? 0) - (b.fromSpans[0]?.start ?? 0));
  for (const call of calls) {
    visit(call.to.file, call.to.selectionSpan.start, depth + 1, call.to.containerName ? `${call.to.containerName}.${call.to.name}` : call.to.name);
    walk.push(file); // back in the caller
  }
}
visit(start, startPos, 0, name);
for (const [thenFile = '', thenName = ''] of then) {
  const called = declaration(thenFile, thenName);
  visit(called.file, called.pos, 1, thenName);
  walk.push(start);
}

const stops = walk.filter((file, i) => i === 0 || walk[i - 1] !== file);
const seen = new Set();
let returns = 0;
for (const [i, file] of stops.entries()) {
  if (seen.has(file) && i > 0) returns += 1;
  seen.add(file);
}
if (flags.includes('--list')) console.log(list.join('\n'));
if (flags.includes('--files')) {
  // How often the walk enters each file: the files a reader keeps going back to.
  /** @type {Map<string, number>} */
  const entries = new Map();
  for (const file of stops) entries.set(file, (entries.get(file) ?? 0) + 1);
  for (const [file, count] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${String(count).padStart(5)}  ${path.relative(root, file)}`);
}
console.log(`${path.relative(root, start)} ${name}${then.length > 0 ? ` (+ ${then.length} called through values)` : ''}${maxDepth < Infinity ? ` (depth ${maxDepth})` : ''}: ${visited.size} functions, ${stops.length} stops in ${seen.size} files, ${returns} returns to a file already left`);
