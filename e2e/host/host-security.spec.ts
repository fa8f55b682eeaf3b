import { test, expect } from '../console-test';

/** The browser host's own guarantees, seen from a browser: these have no Electron counterpart. */
test('the host refuses a page load without its token, or with the wrong one', async ({ console: app, browser }) => {
  const host = app.host!;
  const stranger = await browser.newContext();
  const page = await stranger.newPage();
  const missing = await page.goto(`${host.origin}/`);
  expect(missing?.status()).toBe(401);
  const wrong = await page.goto(`${host.origin}/?token=not-the-token`);
  expect(wrong?.status()).toBe(401);
  await stranger.close();
});

test('the address the host printed keeps working after the token leaves the address bar', async ({ console: app }) => {
  const { page } = app;
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  expect(page.url()).not.toContain('token=');
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
});

test('the status bar says when the connection drops, and recovers by itself', async ({ console: app }) => {
  const { page } = app;
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();
  // Route the page's WebSocket through the test, so the test can cut it as a network drop would,
  // and keep refusing reconnections for a while so the dropped state is there to be seen.
  let firstConnection = true;
  let refuseUntil = 0;
  await page.routeWebSocket(/\/ws/, (socket) => {
    if (Date.now() < refuseUntil) {
      void socket.close({ code: 4000, reason: 'network still down' });
      return;
    }
    socket.connectToServer();
    if (firstConnection) {
      firstConnection = false;
      setTimeout(() => {
        refuseUntil = Date.now() + 3000;
        void socket.close({ code: 4000, reason: 'network dropped' });
      }, 1000);
    }
  });
  await page.reload();
  await expect(page.getByText(/connection lost/i)).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible({ timeout: 15_000 });
  // And the data is back: the page works again.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByText('No agents yet')).toBeVisible();
});
