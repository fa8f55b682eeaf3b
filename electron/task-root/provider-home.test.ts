import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getDefinition } from '../providers/definitions';
import { deliverCredentialFiles, prepareProviderHome, removeLeftoverDelivery } from './provider-home';

/** The home layout of a CLI's definition (null for a command). */
const homeOf = (definitionId: string) => getDefinition(definitionId).home;

let base: string;
let operatorHome: string;
let taskRoot: string;
let cache: string;

function plant(file: string, content = `${path.basename(file)}\n`): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'oc-provider-home-')));
  operatorHome = path.join(base, 'home');
  taskRoot = path.join(base, 'task');
  cache = path.join(taskRoot, 'cache');
  mkdirSync(operatorHome, { recursive: true });
  mkdirSync(cache, { recursive: true });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('prepareProviderHome, preconfigured', () => {
  it("links Codex's auth.json and config.toml from ~/.codex, and preparing twice still works", async () => {
    const auth = plant(path.join(operatorHome, '.codex', 'auth.json'));
    const config = plant(path.join(operatorHome, '.codex', 'config.toml'));
    plant(path.join(operatorHome, '.codex', 'history.jsonl'));
    const input = { home: homeOf('codex'), mode: 'preconfigured' as const, cache, operatorHome, operatorEnv: {} };

    const first = await prepareProviderHome(input);
    const codexHome = path.join(cache, 'codex-home');
    expect(first.homeVar).toEqual({ name: 'CODEX_HOME', value: codexHome });
    expect(first.links).toEqual([
      { path: path.join(codexHome, 'auth.json'), target: auth },
      { path: path.join(codexHome, 'config.toml'), target: config },
    ]);
    expect(readlinkSync(path.join(codexHome, 'auth.json'))).toBe(auth);
    expect(readlinkSync(path.join(codexHome, 'config.toml'))).toBe(config);
    // Runtime state is the task's own: nothing else of ~/.codex is linked.
    expect(readdirSync(codexHome).sort()).toEqual(['auth.json', 'config.toml']);

    const second = await prepareProviderHome(input);
    expect(second).toEqual(first);
    expect(readlinkSync(path.join(codexHome, 'auth.json'))).toBe(auth);
  });

  it("honours the operator's CODEX_HOME and replaces stale links", async () => {
    const custom = path.join(base, 'custom-codex');
    const auth = plant(path.join(custom, 'auth.json'));
    const codexHome = path.join(cache, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    symlinkSync(path.join(base, 'somewhere-else.json'), path.join(codexHome, 'auth.json'));
    symlinkSync(path.join(base, 'old-config.toml'), path.join(codexHome, 'config.toml'));

    const result = await prepareProviderHome({ home: homeOf('codex'), mode: 'preconfigured', cache, operatorHome, operatorEnv: { CODEX_HOME: custom } });
    expect(result.links).toEqual([{ path: path.join(codexHome, 'auth.json'), target: auth }]);
    expect(readlinkSync(path.join(codexHome, 'auth.json'))).toBe(auth);
    // The operator has no config.toml there: the stale link is gone rather than left dangling.
    expect(() => lstatSync(path.join(codexHome, 'config.toml'))).toThrow();
  });

  it('links Claude Code files from ~/.claude and ~/.claude.json, or from CLAUDE_CONFIG_DIR', async () => {
    const credentials = plant(path.join(operatorHome, '.claude', '.credentials.json'));
    const state = plant(path.join(operatorHome, '.claude.json'));
    const settings = plant(path.join(operatorHome, '.claude', 'settings.json'));
    const claudeHome = path.join(cache, 'claude-config');
    const byDefault = await prepareProviderHome({ home: homeOf('claude-code'), mode: 'preconfigured', cache, operatorHome, operatorEnv: {} });
    expect(byDefault.homeVar).toEqual({ name: 'CLAUDE_CONFIG_DIR', value: claudeHome });
    expect(byDefault.links.map((link) => [path.relative(claudeHome, link.path), link.target])).toEqual([
      ['.credentials.json', credentials],
      ['.claude.json', state],
      ['settings.json', settings],
    ]);

    const custom = path.join(base, 'claude-custom');
    const customCredentials = plant(path.join(custom, '.credentials.json'));
    const customState = plant(path.join(custom, '.claude.json'));
    const withOverride = await prepareProviderHome({
      home: homeOf('claude-code'),
      mode: 'preconfigured',
      cache,
      operatorHome,
      operatorEnv: { CLAUDE_CONFIG_DIR: custom },
    });
    expect(withOverride.links.map((link) => link.target)).toEqual([customCredentials, customState]);
    expect(() => lstatSync(path.join(claudeHome, 'settings.json'))).toThrow();
  });

  it('links Pi files from ~/.pi/agent or PI_CODING_AGENT_DIR (with ~ expanded)', async () => {
    const auth = plant(path.join(operatorHome, '.pi', 'agent', 'auth.json'));
    const models = plant(path.join(operatorHome, '.pi', 'agent', 'models.json'));
    const result = await prepareProviderHome({ home: homeOf('pi'), mode: 'preconfigured', cache, operatorHome, operatorEnv: {} });
    expect(result.homeVar).toEqual({ name: 'PI_CODING_AGENT_DIR', value: path.join(cache, 'pi-agent') });
    expect(result.links.map((link) => link.target)).toEqual([auth, models]);

    const settings = plant(path.join(operatorHome, 'pi-elsewhere', 'settings.json'));
    const overridden = await prepareProviderHome({
      home: homeOf('pi'),
      mode: 'preconfigured',
      cache,
      operatorHome,
      operatorEnv: { PI_CODING_AGENT_DIR: '~/pi-elsewhere' },
    });
    expect(overridden.links).toEqual([{ path: path.join(cache, 'pi-agent', 'settings.json'), target: settings }]);
  });

  it('links Gemini CLI files under .gemini, from the home or GEMINI_CLI_HOME', async () => {
    const settings = plant(path.join(operatorHome, '.gemini', 'settings.json'));
    const oauth = plant(path.join(operatorHome, '.gemini', 'oauth_creds.json'));
    const accounts = plant(path.join(operatorHome, '.gemini', 'google_accounts.json'));
    // An API-key login: the key (and a gateway) in ~/.gemini/.env.
    const env = plant(path.join(operatorHome, '.gemini', '.env'));
    const geminiHome = path.join(cache, 'gemini-home');
    const result = await prepareProviderHome({ home: homeOf('gemini-cli'), mode: 'preconfigured', cache, operatorHome, operatorEnv: {} });
    expect(result.homeVar).toEqual({ name: 'GEMINI_CLI_HOME', value: geminiHome });
    expect(result.links).toEqual([
      { path: path.join(geminiHome, '.gemini', 'settings.json'), target: settings },
      { path: path.join(geminiHome, '.gemini', 'oauth_creds.json'), target: oauth },
      { path: path.join(geminiHome, '.gemini', 'google_accounts.json'), target: accounts },
      { path: path.join(geminiHome, '.gemini', '.env'), target: env },
    ]);

    const elsewhere = path.join(base, 'gemini-elsewhere');
    const otherSettings = plant(path.join(elsewhere, '.gemini', 'settings.json'));
    const overridden = await prepareProviderHome({
      home: homeOf('gemini-cli'),
      mode: 'preconfigured',
      cache,
      operatorHome,
      operatorEnv: { GEMINI_CLI_HOME: elsewhere },
    });
    expect(overridden.links.map((link) => link.target)).toEqual([otherSettings]);
  });

  it('has no home for a generic command', async () => {
    expect(await prepareProviderHome({ home: homeOf('command'), mode: 'preconfigured', cache, operatorHome, operatorEnv: {} })).toEqual({
      homeVar: null,
      dir: null,
      links: [],
    });
  });
});

describe('prepareProviderHome, isolated', () => {
  it("is an empty home with nothing of the operator's, even after a preconfigured one", async () => {
    plant(path.join(operatorHome, '.codex', 'auth.json'));
    plant(path.join(operatorHome, '.codex', 'config.toml'));
    await prepareProviderHome({ home: homeOf('codex'), mode: 'preconfigured', cache, operatorHome, operatorEnv: {} });

    const isolated = await prepareProviderHome({ home: homeOf('codex'), mode: 'isolated', cache, operatorHome, operatorEnv: {} });
    expect(isolated.links).toEqual([]);
    expect(isolated.homeVar).toEqual({ name: 'CODEX_HOME', value: path.join(cache, 'codex-home') });
    expect(readdirSync(path.join(cache, 'codex-home'))).toEqual([]);
    expect(await prepareProviderHome({ home: homeOf('codex'), mode: 'isolated', cache, operatorHome, operatorEnv: {} })).toEqual(isolated);
  });

  it('writes credential files readable by the owner only into the home of a run without bind mounts, and removes them', async () => {
    const home = (await prepareProviderHome({ home: homeOf('codex'), mode: 'isolated', cache, operatorHome, operatorEnv: {} })).dir!;
    const delivered = await deliverCredentialFiles({
      taskRoot,
      providerHome: home,
      placement: 'write',
      files: [
        { relativePath: 'auth.json', content: '{"OPENAI_API_KEY":"sk-managed"}' },
        { relativePath: 'nested/config.toml', content: 'cli_auth_credentials_store = "file"\n' },
      ],
    });
    const written = [path.join(home, 'auth.json'), path.join(home, 'nested', 'config.toml')];
    expect(delivered.overlays).toEqual([]);
    expect(delivered.paths).toEqual([...written, home, path.join(home, 'nested')]);
    for (const file of written) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(home, 'auth.json'), 'utf8')).toBe('{"OPENAI_API_KEY":"sk-managed"}');

    await delivered.remove();
    for (const file of written) expect(() => statSync(file)).toThrow();
  });

  it("keeps a bubblewrap run's files in the console's folder, outside the writable roots, bound over empty files in the home", async () => {
    const home = (await prepareProviderHome({ home: homeOf('gemini-cli'), mode: 'isolated', cache, operatorHome, operatorEnv: {} })).dir!;
    const delivered = await deliverCredentialFiles({
      taskRoot,
      providerHome: home,
      placement: 'bind',
      files: [{ relativePath: '.gemini/settings.json', content: '{"security":{}}' }],
    });
    const source = path.join(taskRoot, 'delivered', '.gemini', 'settings.json');
    const slot = path.join(home, '.gemini', 'settings.json');
    expect(delivered.overlays).toEqual([{ source, dest: slot }]);
    expect(statSync(source).mode & 0o777).toBe(0o600);
    expect(readFileSync(source, 'utf8')).toBe('{"security":{}}');
    // The agent can write the home: only the empty file the bind covers is there.
    expect(readFileSync(slot, 'utf8')).toBe('');

    await delivered.remove();
    expect(existsSync(path.join(taskRoot, 'delivered'))).toBe(false);
    expect(existsSync(slot)).toBe(false);
  });

  it("never writes through a link into the operator's file, and refuses paths outside the home", async () => {
    const operatorAuth = plant(path.join(operatorHome, '.codex', 'auth.json'), 'operator login\n');
    const home = path.join(cache, 'codex-home');
    mkdirSync(home, { recursive: true });
    symlinkSync(operatorAuth, path.join(home, 'auth.json'));
    const delivered = await deliverCredentialFiles({ taskRoot, providerHome: home, placement: 'write', files: [{ relativePath: 'auth.json', content: 'managed' }] });
    expect(readFileSync(operatorAuth, 'utf8')).toBe('operator login\n');
    expect(lstatSync(path.join(home, 'auth.json')).isSymbolicLink()).toBe(false);
    await delivered.remove();
    expect(readFileSync(operatorAuth, 'utf8')).toBe('operator login\n');

    await expect(
      deliverCredentialFiles({ taskRoot, providerHome: home, placement: 'write', files: [{ relativePath: '../escape.json', content: 'x' }] }),
    ).rejects.toThrow(/inside the provider home/);
  });

  it("replaces a home the agent turned into a link to the operator's folder, and never deletes or writes there", async () => {
    const operatorCodex = path.join(operatorHome, '.codex');
    const operatorAuth = plant(path.join(operatorCodex, 'auth.json'), 'operator login\n');
    const operatorConfig = plant(path.join(operatorCodex, 'config.toml'), 'model = "operator"\n');
    const home = path.join(cache, 'codex-home');
    // The agent, between attempts: its provider home (in its writable cache) is now the operator's.
    symlinkSync(operatorCodex, home);

    // Crash recovery on the linked home touches nothing behind the link.
    expect(await removeLeftoverDelivery(taskRoot, home, ['auth.json', 'config.toml'])).toBe(0);
    // The next attempt's preparation and delivery replace the link by a real folder.
    const prepared = await prepareProviderHome({ home: homeOf('codex'), mode: 'isolated', cache, operatorHome, operatorEnv: {} });
    expect(lstatSync(home).isDirectory()).toBe(true);
    const delivered = await deliverCredentialFiles({
      taskRoot,
      providerHome: prepared.dir!,
      placement: 'write',
      files: [{ relativePath: 'auth.json', content: 'managed key' }],
    });
    await delivered.remove();
    expect(readFileSync(operatorAuth, 'utf8')).toBe('operator login\n');
    expect(readFileSync(operatorConfig, 'utf8')).toBe('model = "operator"\n');
    expect(readdirSync(operatorCodex).sort()).toEqual(['auth.json', 'config.toml']);
  });

  it('never crosses a link in a folder on the way either (Gemini CLI keeps its files in .gemini)', async () => {
    const operatorGemini = path.join(operatorHome, '.gemini');
    const operatorSettings = plant(path.join(operatorGemini, 'settings.json'), '{"operator":true}\n');
    const home = path.join(cache, 'gemini-home');
    mkdirSync(home, { recursive: true });
    symlinkSync(operatorGemini, path.join(home, '.gemini'));

    expect(await removeLeftoverDelivery(taskRoot, home, ['.gemini/settings.json'])).toBe(0);
    for (const placement of ['write', 'bind'] as const) {
      const delivered = await deliverCredentialFiles({
        taskRoot,
        providerHome: home,
        placement,
        files: [{ relativePath: '.gemini/settings.json', content: '{"managed":true}' }],
      });
      expect(lstatSync(path.join(home, '.gemini')).isSymbolicLink()).toBe(false);
      await delivered.remove();
    }
    expect(readFileSync(operatorSettings, 'utf8')).toBe('{"operator":true}\n');
  });
});
