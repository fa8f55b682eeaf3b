#!/usr/bin/env node
// The static call trace of one entry point through the core: `npm run -s trace:attempt`.
//
//   node scripts/call-trace.mjs <file> <function-or-method name> [--depth N] [--list]
//
// Walks the TypeScript language service's call hierarchy depth first from the named function, into
// every function of electron/ and shared/ it calls (each function once, in source order), and prints
// how the walk moves through files: the stops (each time the walk is in a different file than the step
// before: a call into a file, or a return to one), the files crossed, and the returns to a file already
// left. It measures how much of the code base one reader must hold to follow one entry point. Calls
// made through a callback or an interface's property are not seen by the call hierarchy (say so when
// comparing), and tests are left out. `--depth N` stops N calls below the entry point (what a reader
// follows before trusting a callee by its name).
import path from 'node:path';
import fs from 'node:fs';
import ts from 'typescript';

const [fileArg, name, ...flags] = process.argv.slice(2);
const depthFlag = flags.indexOf('--depth');
const maxDepth = depthFlag >= 0 ? Number(flags[depthFlag + 1]) : Infinity;
if (!fileArg || !name) {
  console.error('usage: node scripts/call-trace.mjs <file> <function name> [--list]');
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

const start = path.resolve(root, fileArg);
const source = service.getProgram()?.getSourceFile(start);
if (!source) throw new Error(`${fileArg} is not in tsconfig.node.json`);
let startPos = -1;
/** @param {import('typescript').Node} node */
function find(node) {
  if (startPos >= 0 || !source) return;
  const named = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isVariableDeclaration(node) ? node.name : undefined;
  if (named && named.getText(source) === name) startPos = named.getStart(source);
  ts.forEachChild(node, find);
}
find(source);
if (startPos < 0) throw new Error(`no function ${name} in ${fileArg}`);

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

const stops = walk.filter((file, i) => i === 0 || walk[i - 1] !== file);
const seen = new Set();
let returns = 0;
for (const [i, file] of stops.entries()) {
  if (seen.has(file) && i > 0) returns += 1;
  seen.add(file);
}
if (flags.includes('--list')) console.log(list.join('\n'));
console.log(`${path.relative(root, start)} ${name}${maxDepth < Infinity ? ` (depth ${maxDepth})` : ''}: ${visited.size} functions, ${stops.length} stops in ${seen.size} files, ${returns} returns to a file already left`);
