/** Replaced at build time by vite's `define` (see vite.config.ts) with package.json's version. */
declare const __APP_VERSION__: string;
