/**
 * The portal stage: the Astro build of site/ from the stats stage's data (with the files the site
 * serves beside its pages: downloads, DuckDB-WASM, ReplayWeb.page and the newest WACZ), and a small
 * static server for the built site.
 */
export type { BuildPortalOptions, BuiltPortal } from './build-portal.ts';
export { buildPortal } from './build-portal.ts';
export type { PortalServer, ServeOptions } from './serve-portal.ts';
export { servePortal } from './serve-portal.ts';
