import { join, resolve } from 'node:path';
import { invalidInput, keepApart } from '../core/index.ts';

/** Where `npm run portal` and `observatory stats` write portal.json when no data folder is given (git-ignored). */
export const DEFAULT_DATA_DIR = join(new URL('../../site/', import.meta.url).pathname, 'src/data/generated');

/** The folder of the built site that mirrors the snapshots folder when downloads are served with the site. */
export const DOWNLOADS_DIR = 'snapshots';

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
  /** The URL the snapshots folder is published at, ending in `/` (default: `snapshotsUrl`, else `<baseUrl>snapshots/`). */
  readonly downloadsUrl: string;
  /** Where to fetch the build's inputs from into `root` (a published snapshots folder), or null: `root` holds them. */
  readonly snapshotsUrl: string | null;
  /** Who publishes the snapshots (dct:publisher); null: not configured, the description says so. */
  readonly publisher: string | null;
  /** How to reach the operators (dcat:contactPoint, About page): a mailto: or http(s) URL; null: not configured. */
  readonly contact: string | null;
  /** `evaluate --out` folder(s) and `estimate --json` outputs the Reproductions page shows; null: none. */
  readonly evaluation: string | null;
  readonly estimation: string | null;
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

/** `ops@example.org` or `mailto:ops@example.org` -> a mailto: URL; an http(s) URL (a contact form) as given. */
function contactUrl(value: string): string {
  const address = value.replace(/^mailto:/i, '');
  if (/^[^\s@:/]+@[^\s@/]+\.[^\s@/]+$/.test(address)) return `mailto:${address}`;
  const url = URL.canParse(value) ? new URL(value) : null;
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url.href;
  throw invalidInput('--contact', 'an e-mail address or an http(s) URL', value);
}

/** Validates stats options at the boundary (CLI or a programmatic caller such as the demo). */
export function statsOptions(input: {
  root: string;
  dataDir: string;
  cacheDir?: string;
  baseUrl?: string;
  downloadsUrl?: string;
  snapshotsUrl?: string;
  publisher?: string;
  contact?: string;
  evaluation?: string;
  estimation?: string;
}): StatsOptions {
  const publisher = input.publisher?.trim();
  if (publisher === '') throw invalidInput('--publisher', 'a name', input.publisher);
  const baseUrl = httpUrl('--base-url', input.baseUrl ?? DEFAULT_BASE_URL);
  const dataDir = resolve(input.dataDir);
  const cacheDir = resolve(input.cacheDir ?? resolve(dataDir, 'cache'));
  // the portal's data and cache folders are written and partly removed on every build
  const why = 'the portal writes its data there: give it a folder of its own';
  keepApart(dataDir, '--data', [input.root], why);
  keepApart(cacheDir, 'the portal cache folder', [input.root], why);
  const snapshotsUrl =
    input.snapshotsUrl === undefined ? null : httpUrl('--snapshots-url', input.snapshotsUrl);
  return Object.freeze({
    root: resolve(input.root),
    dataDir,
    cacheDir,
    baseUrl,
    downloadsUrl: httpUrl(
      '--downloads-url',
      input.downloadsUrl ?? snapshotsUrl ?? `${baseUrl}${DOWNLOADS_DIR}/`,
    ),
    snapshotsUrl,
    publisher: publisher ?? null,
    contact: input.contact === undefined ? null : contactUrl(input.contact),
    evaluation: input.evaluation === undefined ? null : resolve(input.evaluation),
    estimation: input.estimation === undefined ? null : resolve(input.estimation),
  });
}
