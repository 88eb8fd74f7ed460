import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium: the tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** A headless Chromium with a fresh profile, no network besides what the pages ask of 127.0.0.1. */
export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh user-data dir; `close` removes it. */
export async function openBrowser(viewport = { width: 1200, height: 900 }): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'portal-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Refuses every request the browser makes beyond 127.0.0.1 (the site loads nothing from elsewhere:
 * no CDN, no downloads at run time); returns the list of those it refused, filled as they come.
 */
export async function refuseBeyondLocalhost(context: BrowserContext): Promise<string[]> {
  const refused: string[] = [];
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      refused.push(route.request().url());
      return route.abort();
    },
  );
  return refused;
}
