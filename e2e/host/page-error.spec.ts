import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../console-test';

test('a page that crashes shows what happened, Reload and the log, and the rest of the console goes on', async ({ console: app }) => {
  const { page, dataDir } = app;
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  // Route the page's WebSocket through the test and spoil the run list's answer, as a bug in the
  // core could: the Runs page throws while rendering it.
  let spoil = true;
  await page.routeWebSocket(/\/ws/, (socket) => {
    const server = socket.connectToServer();
    const runListRequests = new Set<number>();
    socket.onMessage((message) => {
      if (typeof message === 'string') {
        const request = JSON.parse(message) as { id?: number; channel?: string };
        if (request.channel === 'listRuns' && typeof request.id === 'number') runListRequests.add(request.id);
      }
      server.send(message);
    });
    server.onMessage((message) => {
      if (spoil && typeof message === 'string') {
        const answer = JSON.parse(message) as { type?: string; id?: number; ok?: boolean };
        if (answer.type === 'response' && answer.ok && runListRequests.has(answer.id ?? -1)) {
          socket.send(JSON.stringify({ ...answer, value: { runs: null, nextCursor: null } }));
          return;
        }
      }
      socket.send(message);
    });
  });
  await page.reload();

  const logFile = path.join(dataDir, 'logs', 'console.log');
  await expect(page.getByRole('heading', { level: 1, name: 'This page stopped working' })).toBeVisible();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('What happened:');
  await expect(alert.getByText(logFile)).toBeVisible();
  // The crash is in that log, with the page it happened on.
  await expect.poll(() => readFileSync(logFile, 'utf8')).toContain('"message":"a page of the console crashed"');
  expect(readFileSync(logFile, 'utf8')).toContain('"route":"/runs"');

  // The navigation still works, and another page is unaffected.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tasks' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'This page stopped working' })).toBeVisible();

  // Once the answers are good again, Reload shows the page.
  spoil = false;
  await page.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(page.getByText('No runs yet')).toBeVisible();
});
