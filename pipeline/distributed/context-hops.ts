import { type FetchResult, ObservatoryError, urlPld } from '../core/index.ts';
import { contextAlternate, contextText } from '../crawl/index.ts';
import type { Fetcher } from '../web/index.ts';
import type { ContextAnswer } from './store.ts';

/**
 * Where a context's fetch goes on once it reached a URL of another PLD: the URLs its fetch
 * requested so far, the last one (of the other PLD) not yet, and whether that fetch is of the
 * context's Link alternate (followed once, as in one process). Stored in the context's row.
 */
export interface ContextMove {
  readonly path: readonly string[];
  readonly alternate: boolean;
}

/**
 * Fetches the context `url` under the lease of `pld`, going on from `at`, as one process's
 * fetchContextText does (redirects, then the Link alternate once), but only as far as it stays in
 * `pld`: a redirect or an alternate into another PLD stops there (the fetch's claim refuses the
 * URL, as a document's fetch hands over), and the context goes on under that PLD's lease. The
 * redirects of the whole path count against maxRedirects, and a URL the path requested before is
 * a loop, as within one fetch, so the answer is the one process's.
 */
export async function fetchContextHops(
  web: Pick<Fetcher, 'fetchContext'>,
  url: string,
  at: ContextMove,
  pld: string,
  maxRedirects: number,
  signal: AbortSignal,
): Promise<ContextAnswer | ContextMove> {
  for (let step = at; ; ) {
    const { path } = step;
    let hops = path.length - 1;
    let asked = false;
    // the first URL asked is the step's own; each one after is a redirect's target
    const claim = (next: string) => {
      if (!asked) {
        asked = true;
        return true;
      }
      hops++;
      return urlPld(next) === pld && !path.includes(next) && hops <= maxRedirects;
    };
    const result = await web.fetchContext(path[path.length - 1], signal, claim);
    if (result.handedOver) {
      const went = [...path, ...result.redirects.map((hop) => hop.to)];
      const stuck = path.includes(result.finalUrl)
        ? 'redirect_loop'
        : went.length - 1 > maxRedirects
          ? 'redirect_limit'
          : null;
      if (stuck === null) return { path: went, alternate: step.alternate };
      // the fetch ended on the redirect that could not be followed, as one fetch ends
      return answerOf({
        ...result,
        finalUrl: result.redirects[result.redirects.length - 1].from,
        error: stuck,
      });
    }
    const alternate = step.alternate ? null : contextAlternate(result, url);
    if (alternate === null) return answerOf(result);
    step = { path: [alternate], alternate: true };
    if (urlPld(alternate) !== pld) return step;
  }
}

/** The answer a context's final fetch result gives, as the one-process loader would. */
function answerOf(result: FetchResult): ContextAnswer {
  try {
    return { text: contextText(result), error: null };
  } catch (error) {
    if (!(error instanceof ObservatoryError)) throw error;
    return { text: null, error: error.message };
  }
}
