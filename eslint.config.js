// ESLint for the whole repository: `npm run lint` (part of `npm test`), zero warnings allowed.
//
// TypeScript setup: `tsc` is TypeScript 7 (the native compiler, package.json's `@typescript/native`,
// an npm alias of typescript@7). TypeScript 7 ships no JavaScript compiler API, and typescript-eslint's
// type-aware rules need one, so the package named `typescript` is Microsoft's side-by-side
// `@typescript/typescript6` (TypeScript 6.0's API; its compiler is `tsc6`, which nothing here runs).
// typescript-eslint finds it by the plain name, and npm's peer-dependency check is satisfied without
// overrides. Both read the same tsconfig files, so the types ESLint sees are the ones `tsc` checks.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** The domain folders of the core: plain Node, reached by the transports, never reaching them. */
const domainFolders = ['agents', 'attention', 'cleanup', 'connections', 'environments', 'git', 'landing', 'ledger', 'notices', 'platform', 'projects', 'providers', 'pty', 'runs', 'sandbox', 'task-root', 'tasks', 'usage'];

/**
 * The layering (DESIGN.md section 2), checked on every import, export-from, dynamic import() and
 * require whose specifier resolves to a file: each zone names who (`target`) may not import what (`from`).
 */
const layering = [
  {
    target: './shared',
    from: './',
    except: ['./shared', './node_modules'],
    message: 'shared/ is the contract both sides use: it imports only shared/ and packages.',
  },
  {
    target: './renderer',
    from: './',
    except: ['./renderer', './shared', './node_modules'],
    message: 'The renderer is web code: it imports only renderer/, shared/ and packages.',
  },
  {
    // Everything but the thin shell: electron/main.ts, electron/preload.ts and electron/shell/.
    target: ['./shared', './renderer', './e2e', './scripts', './bench', './electron/!(shell)/**', './electron/!(main|preload).ts'],
    from: './node_modules/electron',
    message: 'Only the Electron shell (electron/main.ts, electron/preload.ts, electron/shell/) imports electron; the core is plain Node.',
  },
  {
    target: './electron/providers',
    from: './electron/runs',
    message: 'Provider definitions describe a CLI; the run lifecycle (electron/runs/) uses them, not the other way round.',
  },
];

/** Not for tests: a domain's integration tests may drive the console the way a transport does. */
const domainsDoNotReachTheTransports = {
  target: domainFolders.map((folder) => `./electron/${folder}`),
  from: ['./electron/transport', './electron/host'],
  message: 'A domain folder does not know how it is reached: the transports (electron/transport/, electron/host/) import it, not the other way round.',
};

export default defineConfig(
  globalIgnores(['dist/', 'native/', 'test-results/', 'playwright-report/', 'e2e/agents/.work/', '.operator-console-data/']),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Each file is checked in the tsconfig program that `npm run typecheck` checks it in (the
        // solution tsconfig.json lists them), so the linter and tsc agree on lib and types.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // As tsc's noUnusedLocals reads them: a leading _ or a rest sibling marks a deliberate omission.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The .mjs files are type-checked from their JSDoc (tsconfig.js.json), which also covers what
    // no-undef would: it knows the Node globals, and ESLint does not.
    files: ['**/*.{js,mjs}'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['**/*.test.{ts,tsx}', 'e2e/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringContaining, ...) are typed `any`, and
      // assertions put them in every expected object; reading an `any` is still reported.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // Playwright reads a fixture's first parameter as a pattern and wants `{}` when it uses none.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }] },
  },

  {
    files: ['renderer/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
  },

  {
    plugins: { 'import-x': importX },
    settings: {
      // Extensionless relative imports, as the bundler and tsc resolve them. `symlinks: false` keeps a
      // linked node_modules (a git worktree's) at its path in the repository, where the zones look.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.mts', '.d.mts', '.mjs', '.js', '.json'], symlinks: false })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layering, domainsDoNotReachTheTransports] }],
    },
  },
  {
    files: ['**/*.test.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layering }],
    },
  },
  {
    // no-restricted-paths sees only specifiers that resolve to a file; Electron's built-in subpaths
    // (electron/main, electron/renderer, ...) exist only inside Electron, so they are named here.
    ignores: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['electron/*'], message: 'Only the Electron shell imports electron.' }] },
      ],
    },
  },
);
