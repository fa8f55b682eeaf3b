// Vite bundles stylesheets imported for their side effect; the web program has no Vite client types.
declare module '*.css';
