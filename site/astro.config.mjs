// The portal is built by `observatory portal` (pipeline/portal/build-portal.ts), which passes where
// the data is, where the site goes and the URL it is published at through these variables.
import { join } from 'node:path';

const baseUrl = new URL(process.env.OBSERVATORY_PORTAL_BASE_URL ?? 'https://linked-data-observatory.github.io/');
const data = process.env.OBSERVATORY_PORTAL_DATA ?? new URL('./src/data/generated', import.meta.url).pathname;

export default {
  site: baseUrl.origin,
  base: baseUrl.pathname,
  outDir: process.env.OBSERVATORY_PORTAL_OUT ?? './dist',
  // caches beside the data, so that builds of different data never share one
  cacheDir: join(data, 'astro-cache'),
  // keep the source's whitespace: left unset, Astro's compression dropped the space between a line's
  // text and an element or expression starting the next line ("at most24 hours", "UTC.Previous:");
  // test/portal/portal.test.ts checks every page for such glue
  compressHTML: false,
  trailingSlash: 'always',
  build: { format: 'directory', inlineStylesheets: 'always' },
  devToolbar: { enabled: false },
  vite: { cacheDir: join(data, 'vite-cache'), logLevel: 'error' },
};
