/**
 * Which answer a request gets, whatever carries it (the HTTP server or the ground truth):
 * robots.txt, scenario URLs, vocabulary terms and generated documents, in that order.
 */

import { type DocRequest, documentReply } from './document-reply.ts';
import { matchPath } from './documents.ts';
import { type Reply, redirectReply, statusReply } from './reply.ts';
import { ROBOTS_REDIRECT_TARGET, type RobotsVariant, robotsAnswer } from './robots.ts';
import { ROBOTS_LAB_HOSTS, SCENARIO_HOSTS, scenarioReply } from './scenarios.ts';
import { TLS_UPGRADE_HOST } from './tls-lab.ts';
import { VOCABULARIES, vocabularyDocUrl } from './vocabularies.ts';
import type { GeneratedWeb } from './web-shape.ts';

export interface RouteRequest extends DocRequest {
  readonly host: string;
  readonly path: string;
  /** How the request came (absent: `http`). */
  readonly scheme?: 'http' | 'https';
}

/** Whether `http://host` answers every request with 301 to `https://host` (only in a Web with https). */
export function upgradesToHttps(web: GeneratedWeb, host: string): boolean {
  return web.options.https && (host === TLS_UPGRADE_HOST || web.hostIndex.get(host)?.httpsRedirect === true);
}

/** The robots.txt variant of a host (null: a host the simulated Web does not serve). */
export function robotsVariantOf(web: GeneratedWeb, host: string): RobotsVariant | null {
  const lab = ROBOTS_LAB_HOSTS.get(host);
  if (lab) return lab;
  if (SCENARIO_HOSTS.has(host)) return 'none';
  return web.hostIndex.get(host)?.robots ?? null;
}

function termRedirect(host: string, path: string): Reply | null {
  for (const v of VOCABULARIES) {
    if (v.host !== host || v.style === 'hash') continue;
    const ns = new URL(v.namespace);
    if (path.startsWith(ns.pathname) && path.length > ns.pathname.length) {
      return redirectReply(v.style === 'see-other' ? 303 : 302, vocabularyDocUrl(v));
    }
  }
  return null;
}

/** A site that moved to https names its own URLs with https in the redirects it sends. */
function secureLocation(reply: Reply, host: string): Reply {
  const location = reply.headers.location;
  if (location === undefined || !location.startsWith(`http://${host}/`)) return reply;
  return redirectReply(reply.status, `https:${location.slice(5)}`);
}

/** The answer to a GET for `host` + `path` + `search` at virtual time `t`; http first redirects where the PLD upgrades to https. */
export function route(web: GeneratedWeb, req: RouteRequest, t: number): Reply {
  if (!upgradesToHttps(web, req.host)) return routeAsIs(web, req, t);
  if (req.scheme !== 'https') return redirectReply(301, `https://${req.host}${req.path}${req.search}`);
  return secureLocation(routeAsIs(web, req, t), req.host);
}

function routeAsIs(web: GeneratedWeb, req: RouteRequest, t: number): Reply {
  const { host, path } = req;
  if (path === '/robots.txt' || path === ROBOTS_REDIRECT_TARGET) {
    const variant = robotsVariantOf(web, host);
    if (variant === null) return statusReply(404, {}, 'Not found\n');
    const a = robotsAnswer(variant, path);
    return { ...statusReply(a.status, a.headers, a.body), delayMs: a.delayMs, compress: true };
  }
  const scenario = scenarioReply(host, path + req.search, { accept: req.accept, at: t });
  if (scenario) return scenario;
  const match = matchPath(web, host, path);
  if (match) return documentReply(web, match, t, req);
  return termRedirect(host, path) ?? statusReply(404, {}, 'Not found\n');
}
