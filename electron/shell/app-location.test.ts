import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { devServerAppLocation, fileAppLocation } from './app-location';

const rendererDir = path.resolve('/opt/operator console/dist/renderer');
const indexUrl = pathToFileURL(path.join(rendererDir, 'index.html')).href;

describe('the app location', () => {
  const location = fileAppLocation(rendererDir);

  it('recognises its own page at any in-app route', () => {
    expect(location.indexUrl).toBe(indexUrl);
    expect(location.isAppPage(indexUrl)).toBe(true);
    expect(location.isAppPage(`${indexUrl}#/agents/agt_1/connection`)).toBe(true);
  });

  it('does not take another local file, a sibling directory or a website for its page', () => {
    expect(location.isAppPage(pathToFileURL('/etc/passwd').href)).toBe(false);
    expect(location.isAppPage(pathToFileURL(path.join(rendererDir, 'other.html')).href)).toBe(false);
    expect(location.isAppPage('https://example.com/index.html')).toBe(false);
    expect(location.isAppPage('not a url')).toBe(false);
    expect(location.isAppResource(pathToFileURL(path.join(rendererDir, 'assets', 'index.js')).href)).toBe(true);
    expect(location.isAppResource(pathToFileURL(`${rendererDir}-evil/index.html`).href)).toBe(false);
  });

  it('accepts a renderer dev server only on loopback http', () => {
    const dev = devServerAppLocation('http://localhost:5173/');
    expect(dev.isAppPage('http://localhost:5173/#/runs')).toBe(true);
    expect(dev.isAppPage('http://localhost:5174/')).toBe(false);
    expect(() => devServerAppLocation('https://example.com/')).toThrow(/loopback/);
    expect(() => devServerAppLocation('http://192.168.1.5:5173/')).toThrow(/loopback/);
  });
});
