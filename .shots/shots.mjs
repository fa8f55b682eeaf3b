import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync, renameSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from '@playwright/test';

const repo = '/work/main';
const out = '/tmp/oc-ws-shots';
const dataDir = '/tmp/oc-ws-shots-data';
const project = '/tmp/oc-ws-shots-project';
const fixture = path.join(repo, 'e2e/fixtures/fixture-agent.mjs');
rmSync(dataDir, { recursive: true, force: true });
rmSync(project, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
mkdirSync(path.join(project, 'src'), { recursive: true });
mkdirSync(path.join(project, 'docs'), { recursive: true });
const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=S', ...args], { cwd });
git(project, 'init', '-q', '-b', 'main');
writeFileSync(path.join(project, 'src/payments.ts'), Array.from({ length: 40 }, (_, i) => `export const step${i} = ${i}; // payment step ${i}`).join('\n') + '\n');
writeFileSync(path.join(project, 'docs/old-name.md'), '# Refunds\n\nHow refunds work.\nLine four.\nLine five.\n');
writeFileSync(path.join(project, 'legacy.txt'), 'remove me\n');
writeFileSync(path.join(project, 'README.md'), '# shop\n');
git(project, 'add', '-A');
git(project, 'commit', '-q', '-m', 'init');

async function startHost() {
  const child = spawn(process.execPath, [path.join(repo, 'dist/electron/serve.js'), '--port', '0', '--data-dir', dataDir], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => process.stderr.write(`[host] ${d}`));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve) => lines.on('line', (line) => { const m = /(http:\/\/\S+)/.exec(line); if (m) resolve(m[1]); }));
  return { child, url };
}

async function api(page, calls) {
  return page.evaluate(async (calls) => {
    const socket = new WebSocket(`ws://${location.host}/ws`);
    await new Promise((r) => socket.addEventListener('open', r, { once: true }));
    let id = 0;
    const call = (channel, input) => new Promise((resolve, reject) => {
      const requestId = ++id;
      const onMessage = (event) => {
        if (typeof event.data !== 'string') return;
        const m = JSON.parse(event.data);
        if (m.type !== 'response' || m.id !== requestId) return;
        socket.removeEventListener('message', onMessage);
        m.ok ? resolve(m.value) : reject(new Error(JSON.stringify(m.error)));
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ type: 'request', id: requestId, channel, input }));
    });
    const results = {};
    for (const [name, channel, input] of calls) {
      const resolved = JSON.parse(JSON.stringify(input), (k, v) => (typeof v === 'string' && v.startsWith('$') ? results[v.slice(1).split('.')[0]]?.[v.split('.')[1]] ?? v : v));
      try { results[name] = await call(channel, resolved); } catch (e) { results[name] = { error: String(e) }; }
    }
    socket.close();
    return results;
  }, calls);
}

const mode = process.argv[2] ?? 'main';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
let host = await startHost();
const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
await context.grantPermissions(['clipboard-read', 'clipboard-write']);
let page = await context.newPage();
await page.goto(host.url);
const base = host.url.replace(/\?.*$/, '');

const r = await api(page, [
  ['project', 'addProject', { path: project }],
  ['writer', 'createAgent', { name: 'Fixture writer', providerId: 'command', model: 'fixture', profileId: 'program-codex-json', executablePath: fixture, commandArgs: ['--json-events', '--write-file', 'src/refund.ts'] }],
  ['boxed', 'createAgent', { name: 'Boxed writer', providerId: 'command', model: 'fixture', profileId: 'program-codex-json', environmentId: 'env_sandboxed', executablePath: fixture, commandArgs: ['--json-events', '--write-file', 'src/refund.ts'] }],
  ['slow', 'createAgent', { name: 'Slow writer', providerId: 'command', model: 'fixture', profileId: 'program-codex-json', executablePath: fixture, commandArgs: ['--json-events', '--write-file', 'src/slow.ts', '--lines', '2000', '--delay-ms', '50'] }],
  ['task', 'createTask', { projectId: '$project.id', title: 'Write the refund module', prompt: 'Write src/refund.ts' }],
  ['run', 'startRun', { taskId: '$task.id', agentId: '$writer.id' }],
  ['boxedRun', 'startRun', { taskId: '$task.id', agentId: '$boxed.id' }],
]);
console.log(JSON.stringify(r, null, 1).slice(0, 3000));
const runId = r.run.id;
await page.goto(`${base}#/runs/${runId}`);
await page.getByText('Succeeded', { exact: true }).first().waitFor({ timeout: 20000 });
await page.getByRole('region', { name: 'Changes' }).getByText('src/refund.ts').first().waitFor();

// More changes in the view, as an agent might make.
const detail = await api(page, [['d', 'getRun', { runId }]]);
const view = detail.d.cwd;
console.log('view', view);
const payments = readFileSync(path.join(view, 'src/payments.ts'), 'utf8').split('\n');
payments[3] = 'export const step3 = 33; // changed by the agent';
payments.splice(20, 0, 'export function refund(amount: number) {', '\treturn -amount;', '}');
writeFileSync(path.join(view, 'src/payments.ts'), payments.join('\n'));
rmSync(path.join(view, 'legacy.txt'));
renameSync(path.join(view, 'docs/old-name.md'), path.join(view, 'docs/new-name.md'));
writeFileSync(path.join(view, 'notes with space.md'), 'a note\nwithout final newline');
await page.getByRole('button', { name: 'Refresh changes' }).click();
await page.getByText('docs/new-name.md').first().waitFor();
await page.screenshot({ path: `${out}/01-run-detail.png`, fullPage: true });
await page.getByRole('region', { name: 'Changes' }).screenshot({ path: `${out}/02-changes.png` });
await page.getByRole('region', { name: 'Confinement' }).screenshot({ path: `${out}/03-confinement.png` });
await page.getByRole('region', { name: 'Changes' }).getByRole('button', { name: 'Open folder' }).click();
await page.getByRole('button', { name: 'Copy path' }).click();
await page.getByText('Copied.').waitFor();
await page.getByRole('region', { name: 'Changes' }).screenshot({ path: `${out}/04-open-folder.png`, clip: undefined });
await page.emulateMedia({ colorScheme: 'dark' });
await page.getByText('src/payments.ts').last().scrollIntoViewIfNeeded();
await page.screenshot({ path: `${out}/05-dark.png` });
await page.emulateMedia({ colorScheme: 'light' });
await page.getByRole('button', { name: 'Archive run' }).click();
await page.screenshot({ path: `${out}/06-archive-dialog.png` });
await page.getByRole('alertdialog').getByRole('button', { name: 'Archive' }).click();
await page.getByText('worktree was cleaned up').waitFor();
await page.screenshot({ path: `${out}/07-archived.png` });
await page.getByRole('region', { name: 'Changes' }).scrollIntoViewIfNeeded();
await page.screenshot({ path: `${out}/07b-archived-changes.png` });
await page.goto(`${base}#/runs/${r.boxedRun.id}`);
await page.getByRole('region', { name: 'Confinement' }).waitFor();
await page.waitForTimeout(500);
await page.screenshot({ path: `${out}/08-sandboxed-run.png` });
await page.getByRole('region', { name: 'Changes' }).scrollIntoViewIfNeeded();
await page.screenshot({ path: `${out}/08b-sandboxed-changes.png` });
await page.goto(`${base}#/runs`);
await page.waitForTimeout(500);
await page.screenshot({ path: `${out}/09-runs-list.png` });

// A running run, then a crash: stranded.
const s = await api(page, [['run', 'startRun', { taskId: r.task.id, agentId: r.slow.id }]]);
await page.goto(`${base}#/runs/${s.run.id}`);
await page.getByText('Running', { exact: true }).first().waitFor();
await page.waitForTimeout(5000);
await page.screenshot({ path: `${out}/10-running.png`, fullPage: true });
host.child.kill('SIGKILL');
await new Promise((r) => setTimeout(r, 500));
host = await startHost();
page = await context.newPage();
await page.goto(host.url);
await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), s.run.id);
await page.getByText('Stranded', { exact: true }).first().waitFor();
await page.waitForTimeout(1000);
await page.screenshot({ path: `${out}/11-stranded.png`, fullPage: true });
host.child.kill('SIGTERM');
await browser.close();
