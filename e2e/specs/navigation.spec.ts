import { test, expect } from '../console-test';

test('the operator clicks through every page and each says what to do next', async ({ console: app }) => {
  const { page } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });

  // The console opens on Runs.
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(page.getByText('No runs yet')).toBeVisible();

  await nav.getByRole('link', { name: 'Tasks' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tasks' })).toBeVisible();
  await expect(page.getByText('Add a project first')).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Tasks' })).toHaveAttribute('aria-current', 'page');

  await nav.getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible();
  await expect(page.getByText('No agents yet')).toBeVisible();

  await nav.getByRole('link', { name: 'Clean up' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Clean up' })).toBeVisible();
  await expect(page.getByText('Nothing to clean up')).toBeVisible();

  await nav.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await page.getByRole('link', { name: 'AI connections' }).click();
  await expect(page.getByRole('heading', { name: 'AI connections' })).toBeVisible();
  await expect(page.getByText('No AI connections yet')).toBeVisible();

  await nav.getByRole('link', { name: /^Notices/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notices' })).toBeVisible();
  await expect(page.getByText(/nothing needs your attention/i)).toBeVisible();

  // The transport is up, and says so.
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();
});

test('the keyboard alone reaches the navigation and the content', async ({ console: app }) => {
  const { page } = app;
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  // Tab to Settings in the navigation and open it with Enter.
  const settings = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' });
  for (let i = 0; i < 10 && !(await settings.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press('Tab');
  }
  await expect(settings).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
});

test('an unknown address shows a way back', async ({ console: app }) => {
  const { page } = app;
  await page.evaluate(() => (window.location.hash = '#/no/such/page'));
  await expect(page.getByText('Page not found')).toBeVisible();
  await page.getByRole('link', { name: /back to the run list/i }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
});
