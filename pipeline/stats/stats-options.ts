import { resolve } from 'node:path';
import { invalidInput } from '../core/index.ts';

/** Where the stats stage reads and writes, validated once into absolute paths and `/`-terminated URLs. */
export interface StatsOptions {
  /** The snapshots folder (its index.json lists what is published). */
  readonly root: string;
  /** Where portal.json, the dataset description and urls.txt are written. */
  readonly dataDir: string;
  /** Per-snapshot digests, keyed by manifest checksum; kept between builds. */
  readonly cacheDir: string;
  /** The URL the portal is published at, ending in `/`. */
  readonly baseUrl: string;
  /** The URL the snapshots folder is published at, ending in `/` (default: `<baseUrl>snapshots/`). */
  readonly downloadsUrl: string;
}

/** The default base URL: the crawler's User-Agent points at this site's About page. */
export const DEFAULT_BASE_URL = 'https://linked-data-observatory.github.io/';

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidInput(name, 'an absolute http(s) URL', value);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidInput(name, 'an absolute http(s) URL', value);
  }
  if (url.search || url.hash) throw invalidInput(name, 'a URL without query or fragment', value);
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/** Validates stats options at the boundary (CLI or a programmatic caller such as the demo). */
export function statsOptions(input: {
  root: string;
  dataDir: string;
  cacheDir?: string;
  baseUrl?: string;
  downloadsUrl?: string;
}): StatsOptions {
  const baseUrl = httpUrl('--base-url', input.baseUrl ?? DEFAULT_BASE_URL);
  const dataDir = resolve(input.dataDir);
  return Object.freeze({
    root: resolve(input.root),
    dataDir,
    cacheDir: resolve(input.cacheDir ?? resolve(dataDir, 'cache')),
    baseUrl,
    downloadsUrl: httpUrl('--downloads-url', input.downloadsUrl ?? `${baseUrl}snapshots/`),
  });
}
