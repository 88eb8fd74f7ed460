import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SiteFile } from './site-sync.ts';

/**
 * ReplayWeb.page as files of the site, from the npm package `replaywebpage` (never a CDN): its UI
 * (the `<replay-web-page>` element) and its service worker, in one folder that is the worker's scope,
 * so the worker serves the replay frame there (it loads `./ui.js` beside itself), and that frame's
 * page as a file too, for a frame that loads before the worker is active.
 */
export const REPLAY_BUNDLE = { dir: 'replaywebpage', ui: 'ui.js', sw: 'sw.js', frame: 'index.html' } as const;

/** The page the worker serves for its frame (`serveIndex`, wabac's getIndexHtml), as a file. */
const FRAME_PAGE = `<!doctype html>
<html>
<head><script src="./${REPLAY_BUNDLE.ui}"></script></head>
<body><replay-app-main></replay-app-main></body>
</html>
`;

/** The Replay page's folder: the page, and the WACZ it opens. */
export const REPLAY_DIR = 'replay';

/** Beside portal.json: which snapshot's WACZ this build publishes (null: none), for the Replay page. */
export const REPLAY_INFO_FILE = 'replay.json';

/** What the Replay page opens. */
export interface ReplayInfo {
  readonly snapshot: string;
  /** The WACZ's path in the site. */
  readonly path: string;
  readonly bytes: number;
}

/** The bundle's files as files of the site (path in the site -> the package's file), pinned by the package's version. */
export function replayBundleFiles(): Map<string, SiteFile> {
  // package.json is not among the package's exports: read it beside index.html, which is
  const dir = dirname(createRequire(import.meta.url).resolve('replaywebpage/index.html'));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const files = new Map<string, SiteFile>(
    [REPLAY_BUNDLE.ui, REPLAY_BUNDLE.sw].map((name) => [
      join(REPLAY_BUNDLE.dir, name),
      { from: join(dir, name), identity: `replaywebpage@${version}:${name}` },
    ]),
  );
  files.set(join(REPLAY_BUNDLE.dir, REPLAY_BUNDLE.frame), { text: FRAME_PAGE });
  return files;
}
