/**
 * Where a URL stands in a crawl's frontier: not known yet, a candidate for the next round (a link),
 * queued in a round (a seed, or a candidate that joined), fetched and recorded, or fetched within
 * another URL's fetch. One process's frontier (frontier.ts) and the coordinator's table
 * (distributed/store.ts) each map their state to it.
 */
export type FrontierPlace = 'new' | 'candidate' | 'queued' | 'done' | 'elsewhere';

/**
 * The rule for a URL that a redirect leads to (the fetch that followed the redirect requests it):
 * whether it becomes a URL fetched elsewhere, with no documents row of its own (its document is in
 * the row of the URL whose fetch requested it) and links to it not followed from then on. A URL
 * not in a round yet, new or only a candidate, does; one queued in a round keeps its row (its own
 * fetch hands over to whichever fetch requested the URL first), and one done or fetched elsewhere
 * already stays as it is.
 *
 * A candidate is taken too, so that the rows do not depend on which ended first within a round,
 * the document that links the URL or the fetch redirected to it: the one-process crawl, whose
 * fetches end in any order, and the coordinator, whose workers record in any order, give the same
 * rows (issue #30).
 */
export function redirectTakesOver(place: FrontierPlace): boolean {
  return place === 'new' || place === 'candidate';
}
