import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from '@playwright/test';
const repo = '/work/main';
const dataDir = '/tmp/oc-race-data';
const project = '/tmp/oc-race-project';
const fixture = path.join(repo, 'e2e/fixtures/fixture-agent.mjs');
rmSync(dataDir, { recursive: true, force: true }); rmSync(project, { recursive: true, force: true });
mkdirSync(project, { recursive: true });
const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=S', ...args], { cwd });
git(project, 'init', '-q', '-b', 'main'); writeFileSync(path.join(project, 'README.md'), '# shop\n'); git(project, 'add', '-A'); git(project, 'commit', '-q', '-m', 'init');
const child = spawn(process.execPath, [path.join(repo, 'dist/electron/serve.js'), '--port', '0', '--data-dir', dataDir], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
const lines = createInterface({ input: child.stdout });
const url = await new Promise((resolve) => lines.on('line', (line) => { const m = /(http:\/\/\S+)/.exec(line); if (m) resolve(m[1]); }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await (await browser.newContext()).newPage();
const t0 = Date.now();
page.on('websocket', (ws) => {
  ws.on('framesent', (f) => { if (typeof f.payload === 'string' && /getRunDiff|startRun/.test(f.payload)) console.log(Date.now() - t0, 'sent', f.payload.slice(0, 120)); });
  ws.on('framereceived', (f) => { if (typeof f.payload === 'string' && /runsChanged|baseRevision|not_found/.test(f.payload)) console.log(Date.now() - t0, 'recv', f.payload.slice(0, 200)); });
});
await page.goto(url);
await page.getByRole('navigation', { name: 'Main' }).waitFor();
const ids = await page.evaluate(async ({ project, fixture }) => {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  await new Promise((r) => socket.addEventListener('open', r, { once: true }));
  let id = 100;
  const call = (channel, input) => new Promise((resolve, reject) => { const rid = ++id; const on = (e) => { if (typeof e.data !== 'string') return; const m = JSON.parse(e.data); if (m.type !== 'response' || m.id !== rid) return; socket.removeEventListener('message', on); m.ok ? resolve(m.value) : reject(new Error(m.error.message)); }; socket.addEventListener('message', on); socket.send(JSON.stringify({ type: 'request', id: rid, channel, input })); });
  const p = await call('addProject', { path: project });
  const a = await call('createAgent', { name: 'W', providerId: 'command', model: 'fixture', profileId: 'program-codex-json', executablePath: fixture, commandArgs: ['--json-events', '--write-file', 'src/refund.ts'] });
  const t = await call('createTask', { projectId: p.id, title: 'T', prompt: 'x' });
  const r = await call('startRun', { taskId: t.id, agentId: a.id });
  return { taskId: t.id, agentId: a.id, runId: r.id };
}, { project, fixture });
// Start the run from the page's own client and go to it at once, as Start run does.
await page.evaluate(({ taskId, agentId }) => { window.__start = { taskId, agentId }; }, ids);
await page.goto(url.replace(/\?.*$/, '') + '#/runs/' + ids.runId);
await page.getByText('Succeeded', { exact: true }).first().waitFor({ timeout: 20000 });
console.log(Date.now() - t0, 'succeeded visible');
for (const wait of [0, 1000, 3000]) {
  await page.waitForTimeout(wait);
  console.log(Date.now() - t0, 'changes:', (await page.getByRole('region', { name: 'Changes' }).innerText()).replace(/\n/g, ' | ').slice(0, 200));
}
child.kill('SIGTERM'); await browser.close();
