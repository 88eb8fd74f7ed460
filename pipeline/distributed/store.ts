import type pg from 'pg';
import type {
  CrawlConfig,
  CrawlSegment,
  DocumentRecord,
  FetchResult,
  PreviousObservation,
  Statement,
} from '../core/index.ts';
import { urlPld } from '../core/index.ts';
import { type FrontierPlace, type PldTrust, redirectTakesOver } from '../crawl/index.ts';
import type { ContextMove } from './context-hops.ts';
import type { StoredExchange } from './exchanges.ts';

/** A URL as it joins a round: [url, depth] (the journal's RoundUrl). */
export type JoinedUrl = readonly [url: string, depth: number];

/** What workers need of a crawl's plan (CrawlPlan without functions: segmentFor as a table by depth). */
export interface StoredPlan {
  readonly maxDepth: number;
  /** null: no budget. */
  readonly maxDocuments: number | null;
  /** null: no limit. */
  readonly maxRounds: number | null;
  /** The segment of a document at depth d is segments[min(d, length - 1)]. */
  readonly segments: readonly CrawlSegment[];
}

export interface CrawlRow {
  readonly id: string;
  readonly plan: StoredPlan;
  /** The crawl's config (CrawlConfig as JSON): every worker crawls with it. */
  readonly config: Record<string, unknown>;
  readonly round: number;
  readonly state: 'crawling' | 'done';
  /** The archive and the journal are written. */
  readonly journaled: boolean;
}

/** A PLD lease as taken: its politeness state, as the previous holder left it. */
export interface Lease {
  readonly pld: string;
  readonly nextAllowedMs: number;
  readonly delayMs: number;
  /**
   * The robots.txt answers cached for the PLD's authorities (RobotsEntry[] as JSON). Stored with
   * an outcome or a release only when not null: null says unchanged since last stored.
   */
  readonly robots: string | null;
  /** The re-visit policy's trust in the PLD's 304s, so that a PLD changing workers is not checked again. */
  readonly trust: PldTrust;
}

/** One URL's outcome, as a worker records it. */
export interface Outcome {
  readonly url: string;
  readonly depth: number;
  readonly round: number;
  /** The record; for a fetch handed over to another PLD, the record as far as this worker knows it. */
  readonly record: DocumentRecord;
  readonly statements: readonly Statement[];
  /** Set when the fetch stopped at a URL of another PLD: the fetch, resolved when the journal is written. */
  readonly handedOver: FetchResult | null;
  /** Links to queue as candidates (already capped and without the document's own URLs). */
  readonly links: readonly string[];
  /** The exchange (of this worker's fetcher) that carried the record's final response, if any. */
  readonly response: number | null;
  /** A 304 whose previous statements are carried over (the coordinator reads them). */
  readonly carried: boolean;
  /** The URL asked for whose fetch this one continues (Queued.continues), or null. */
  readonly continues: string | null;
}

/** A URL to fetch, as the frontier holds it. */
export interface Queued {
  readonly url: string;
  readonly depth: number;
  readonly round: number;
  /** What a re-visit asks about (a seed's previous observation), if any. */
  readonly previous: PreviousObservation | null;
  /**
   * Set when this URL is not one of its own: a fetch of another PLD reached it by a redirect and
   * stopped there (redirect-targets.ts); the URL asked for whose fetch this one goes on with.
   */
  readonly continues: string | null;
}

/** The first key of the per-crawl advisory lock that outcomes take before writing frontier rows. */
const FRONTIER_LOCK = 18;

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/**
 * Whether PostgreSQL refused a value rather than failed: a data exception (class 22: a byte
 * sequence TEXT cannot hold, a value out of range) or a program limit (class 54: an index entry
 * too large). The same value is refused again however often it is sent, so a worker records the
 * document it came with as a failure instead of stopping on it (and so does every worker after it).
 */
export function isStorageRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

/** Runs `work` in a transaction, again (a few times) when PostgreSQL reports a deadlock or serialisation failure. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const value = await work(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (attempt >= 5 || !RETRYABLE.has((error as { code?: string }).code ?? '')) throw error;
    } finally {
      client.release();
    }
  }
}

/** A PLD row for each PLD of `urls` that has none yet, with the crawl's delay. */
async function addPlds(client: pg.PoolClient, crawl: string, plds: readonly string[], delayMs: number) {
  if (plds.length === 0) return;
  await client.query(
    `INSERT INTO pld_lease (crawl, pld, delay_ms)
     SELECT $1, p, $3 FROM unnest($2::text[]) AS t(p) ORDER BY p
     ON CONFLICT DO NOTHING`,
    [crawl, [...new Set(plds)], delayMs],
  );
}

/**
 * Creates the crawl with its seeds as round 0, each with its previous observation if it has one,
 * unless it exists (a resumed coordinator); returns its row.
 */
export async function createCrawl(
  pool: pg.Pool,
  id: string,
  plan: StoredPlan,
  config: CrawlConfig,
  seeds: readonly JoinedUrl[],
  previous: (url: string) => PreviousObservation | undefined,
): Promise<CrawlRow> {
  return inTransaction(pool, async (client) => {
    const created = await client.query(
      `INSERT INTO crawl (id, plan, config) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [id, JSON.stringify(plan), JSON.stringify(config)],
    );
    if (created.rowCount === 1) {
      const urls = seeds.map(([url]) => url);
      const plds = urls.map(urlPld);
      const observations = urls.map((url) => {
        const observation = previous(url);
        return observation ? JSON.stringify(observation) : null;
      });
      await client.query(
        `INSERT INTO frontier (crawl, url, pld, round, depth, previous)
         SELECT $1, u, p, 0, d, o FROM unnest($2::text[], $3::text[], $4::int[], $5::text[]) AS t(u, p, d, o)`,
        [id, urls, plds, seeds.map(([, depth]) => depth), observations],
      );
      await addPlds(client, id, plds, config.delayMs);
    }
    const { rows } = await client.query(
      'SELECT id, plan, config, round, state, journaled FROM crawl WHERE id = $1',
      [id],
    );
    return rows[0] as CrawlRow;
  });
}

/**
 * Whether crawl `c` has a URL waiting in a round on a PLD nobody holds: work a worker could lease
 * now (SQL over `c`, a crawl row).
 */
const LEASABLE = `EXISTS (SELECT 1 FROM frontier f JOIN pld_lease l ON l.crawl = f.crawl AND l.pld = f.pld
  WHERE f.crawl = c.id AND f.state = 'waiting' AND f.round IS NOT NULL
    AND (l.owner IS NULL OR l.expires_at < clock_timestamp()))`;

/**
 * The crawl workers should serve: the oldest one still crawling that has work to lease now, else
 * the oldest one still crawling. Several observatories may share the database, each with crawls
 * of its own (and a crawl whose coordinator is gone for good keeps its state): a crawl waiting for
 * its coordinator's next round must not keep workers from another crawl's URLs.
 */
export async function activeCrawl(pool: pg.Pool): Promise<CrawlRow | null> {
  const { rows } = await pool.query(
    `SELECT id, plan, config, round, state, journaled FROM crawl c WHERE state = 'crawling'
     ORDER BY ${LEASABLE} DESC, created_at, id LIMIT 1`,
  );
  return (rows[0] as CrawlRow | undefined) ?? null;
}

/** Whether a crawl other than `crawl` has work to lease now (a worker idle in `crawl` goes there). */
export async function otherCrawlWaiting(pool: pg.Pool, crawl: string): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT EXISTS (SELECT 1 FROM crawl c WHERE c.state = 'crawling' AND c.id <> $1 AND ${LEASABLE}) AS waiting`,
    [crawl],
  );
  return rows[0].waiting;
}

export async function crawlState(pool: pg.Pool, id: string): Promise<CrawlRow['state'] | null> {
  const { rows } = await pool.query('SELECT state FROM crawl WHERE id = $1', [id]);
  return (rows[0]?.state as CrawlRow['state'] | undefined) ?? null;
}

/**
 * Where a crawl stands: URLs waiting in the current round (continued fetches included), URLs
 * recorded, URLs ever put in a round (those of their own: what the budget counts), PLDs leased.
 */
export async function crawlStatus(pool: pg.Pool, id: string) {
  const { rows } = await pool.query(
    `SELECT c.round,
       (SELECT count(*) FROM frontier f WHERE f.crawl = c.id AND f.state = 'waiting' AND f.round IS NOT NULL)::int AS waiting,
       (SELECT count(*) FROM result r WHERE r.crawl = c.id)::int AS recorded,
       (SELECT count(*) FROM frontier f WHERE f.crawl = c.id AND f.round IS NOT NULL AND f.continues IS NULL)::int AS assigned,
       (SELECT count(*) FROM pld_lease l WHERE l.crawl = c.id AND l.expires_at > clock_timestamp())::int AS leased
     FROM crawl c WHERE c.id = $1`,
    [id],
  );
  return rows[0] as { round: number; waiting: number; recorded: number; assigned: number; leased: number };
}

/**
 * What the round-end rule looks at: the PLDs with URLs waiting in a round, the fetch slots of the
 * live workers (those registered whose rows have not expired, with theirs; a lease holder that never
 * registered, a worker of an earlier version, with `slots`), and whether candidates within
 * `maxDepth` bring a PLD that has none waiting.
 */
export async function roundEndView(pool: pg.Pool, crawl: string, maxDepth: number, slots: number) {
  const { rows } = await pool.query(
    `WITH live AS (SELECT id, slots FROM crawl_worker WHERE crawl = $1 AND expires_at > clock_timestamp())
     SELECT
       (SELECT count(DISTINCT pld) FROM frontier
        WHERE crawl = $1 AND state = 'waiting' AND round IS NOT NULL)::int AS active,
       ((SELECT coalesce(sum(slots), 0) FROM live)
        + $3 * (SELECT count(DISTINCT owner) FROM pld_lease
                WHERE crawl = $1 AND expires_at > clock_timestamp()
                  AND owner NOT IN (SELECT id FROM live)))::int AS slots,
       EXISTS (SELECT 1 FROM frontier c
               WHERE c.crawl = $1 AND c.state = 'waiting' AND c.round IS NULL AND c.depth <= $2
                 AND NOT EXISTS (SELECT 1 FROM frontier a WHERE a.crawl = $1 AND a.pld = c.pld
                                 AND a.state = 'waiting' AND a.round IS NOT NULL)) AS incoming`,
    [crawl, maxDepth, slots],
  );
  return rows[0] as { active: number; slots: number; incoming: boolean };
}

/** Links of a document at `depth`, as candidates of the next round. */
export interface DocumentLinks {
  readonly depth: number;
  readonly links: readonly string[];
}

/**
 * Starts round `round`: first the links of the previous round's carried-over 304s are queued (the
 * coordinator read their statements; workers never had them), then candidates up to `maxDepth`
 * hops join, fewest hops first, then most in-links, then by URL (the one-process frontier's
 * order), at most `budget` of them (null: all), in one transaction. Returns how many joined.
 */
export async function advanceRound(
  pool: pg.Pool,
  id: string,
  round: number,
  maxDepth: number,
  budget: number | null,
  carriedLinks: readonly DocumentLinks[],
): Promise<number> {
  return inTransaction(pool, async (client) => {
    // the frontier rows it writes are any of the crawl's, as an outcome's are (recordOutcome)
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FRONTIER_LOCK, id]);
    for (const { depth, links } of carriedLinks) await queueLinks(client, id, links, depth);
    const joined = await client.query(
      `UPDATE frontier f SET round = $2
       FROM (SELECT url FROM frontier
             WHERE crawl = $1 AND state = 'waiting' AND round IS NULL AND depth <= $3
             ORDER BY depth, inlinks DESC, url COLLATE "C" LIMIT $4) AS j
       WHERE f.crawl = $1 AND url_key(f.url) = url_key(j.url)`,
      // LIMIT NULL is no limit
      [id, round, maxDepth, budget === null ? null : Math.max(0, budget)],
    );
    await client.query('UPDATE crawl SET round = $2 WHERE id = $1', [id, round]);
    return joined.rowCount ?? 0;
  });
}

export async function finishCrawl(pool: pg.Pool, id: string): Promise<void> {
  await pool.query(`UPDATE crawl SET state = 'done' WHERE id = $1`, [id]);
}

export async function markJournaled(pool: pg.Pool, id: string): Promise<void> {
  await pool.query('UPDATE crawl SET journaled = true WHERE id = $1', [id]);
}

/**
 * Leases one PLD of the crawl that has URLs waiting in a round and that nobody holds (or whose
 * lease expired), for `leaseMs`; with `pld`, that PLD if nobody holds it, whatever waits there (a
 * worker that needs a JSON-LD context of it). `FOR UPDATE SKIP LOCKED` lets many workers lease at
 * once without waiting for each other. A lease taken over from a holder that vanished keeps its
 * requests at least one delay after the moment that lease expired: the holder may have started one
 * just before.
 */
export async function leasePld(
  pool: pg.Pool,
  crawl: string,
  owner: string,
  leaseMs: number,
  pld: string | null = null,
): Promise<Lease | null> {
  const { rows } = await pool.query(
    `WITH free AS (
       SELECT l.pld FROM pld_lease l
       WHERE l.crawl = $1 AND (l.owner IS NULL OR l.expires_at < clock_timestamp())
         AND CASE WHEN $4::text IS NULL
           THEN EXISTS (SELECT 1 FROM frontier f WHERE f.crawl = l.crawl AND f.pld = l.pld
                        AND f.state = 'waiting' AND f.round IS NOT NULL)
           ELSE l.pld = $4 END
       ORDER BY l.next_allowed_ms, l.pld LIMIT 1
       FOR UPDATE SKIP LOCKED)
     UPDATE pld_lease l SET owner = $2,
       expires_at = clock_timestamp() + $3 * interval '1 millisecond',
       next_allowed_ms = CASE WHEN l.owner IS NULL THEN l.next_allowed_ms
         ELSE greatest(l.next_allowed_ms, extract(epoch FROM l.expires_at) * 1000 + l.delay_ms) END
     FROM free WHERE l.crawl = $1 AND l.pld = free.pld
     RETURNING l.pld, l.next_allowed_ms, l.delay_ms, l.robots, l.revisit_trust`,
    [crawl, owner, leaseMs, pld],
  );
  const row = rows[0];
  return row
    ? {
        pld: row.pld,
        nextAllowedMs: Number(row.next_allowed_ms),
        delayMs: Number(row.delay_ms),
        robots: row.robots,
        trust: row.revisit_trust,
      }
    : null;
}

/**
 * What a remote JSON-LD context URL answered in this crawl: its text, or the message of the
 * `parse` error its fetch gave (as the one-process context loader throws it).
 */
export type ContextAnswer =
  | { readonly text: string; readonly error: null }
  | { readonly text: null; readonly error: string };

/** A context of the crawl: asked of the holder of `pld`, going on from `moved` if set, until it has its answer. */
export interface ContextRow {
  readonly pld: string;
  readonly moved: ContextMove | null;
  readonly answer: ContextAnswer | null;
}

/** The second key is the crawl's: the count of a crawl's contexts and its insert are one at a time. */
const CONTEXT_LOCK = 19;

/**
 * A context URL as the context table stores it: as JSON, since it is the URL as the document named
 * it (not normalised), and may hold what TEXT cannot (a NUL, a lone surrogate).
 */
const storedUrl = (url: string) => JSON.stringify(url);

/** The context's row; it exists once askContext said so. */
export async function contextState(pool: pg.Pool, crawl: string, url: string): Promise<ContextRow> {
  const { rows } = await pool.query(
    'SELECT pld, moved, answer FROM context WHERE crawl = $1 AND url_key(url) = url_key($2)',
    [crawl, storedUrl(url)],
  );
  const row = rows[0];
  if (!row) throw new Error(`context ${storedUrl(url)} of crawl ${crawl} is not in the coordinator`);
  return {
    pld: row.pld,
    moved: row.moved === null ? null : (JSON.parse(row.moved) as ContextMove),
    answer: row.answer === null ? null : (JSON.parse(row.answer) as ContextAnswer),
  };
}

/**
 * Asks the holder of `pld` for a context (a row without an answer) and gives the PLD a lease row,
 * unless the crawl asked for `limit` contexts already: false then (the crawl's limit of contexts,
 * across its workers). A context asked before stays asked (true).
 */
export async function askContext(
  pool: pg.Pool,
  crawl: string,
  url: string,
  pld: string,
  delayMs: number,
  limit: number,
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    // the lock before any row: two asks adding the same PLD row must not each wait for the other;
    // then pld_lease before context, as ensureSchema locks them (a worker connecting meanwhile)
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CONTEXT_LOCK, crawl]);
    await addPlds(client, crawl, [pld], delayMs);
    const { rows } = await client.query(
      `SELECT count(*)::integer AS asked, bool_or(url_key(url) = url_key($2)) AS known
       FROM context WHERE crawl = $1`,
      [crawl, storedUrl(url)],
    );
    if (rows[0].known) return true;
    if (rows[0].asked >= limit) return false;
    await client.query('INSERT INTO context (crawl, url, pld) VALUES ($1, $2, $3)', [
      crawl,
      storedUrl(url),
      pld,
    ]);
    return true;
  });
}

/**
 * Hands a context's fetch, stopped at a URL of another PLD, on to that PLD's holder: it goes on
 * from `moved` (unless the context has its answer or went on already).
 */
export async function moveContext(
  pool: pg.Pool,
  crawl: string,
  url: string,
  from: string,
  moved: ContextMove,
  delayMs: number,
): Promise<void> {
  const to = urlPld(moved.path[moved.path.length - 1]);
  await inTransaction(pool, async (client) => {
    await addPlds(client, crawl, [to], delayMs);
    await client.query(
      `UPDATE context SET pld = $4, moved = $5
       WHERE crawl = $1 AND url_key(url) = url_key($2) AND pld = $3 AND answer IS NULL`,
      [crawl, storedUrl(url), from, to, JSON.stringify(moved)],
    );
  });
}

/**
 * Stores a context's answer for every worker of the crawl (the first answer stays), fetched under
 * `pld`'s lease. As JSON: the text is the body as read, NUL bytes and all.
 */
export async function answerContext(
  pool: pg.Pool,
  crawl: string,
  url: string,
  pld: string,
  answer: ContextAnswer,
): Promise<void> {
  await pool.query(
    `UPDATE context SET answer = $4
     WHERE crawl = $1 AND url_key(url) = url_key($2) AND pld = $3 AND answer IS NULL`,
    [crawl, storedUrl(url), pld, JSON.stringify(answer)],
  );
}

/** Contexts asked of the PLDs `plds` and not answered yet. */
export async function askedContexts(
  pool: pg.Pool,
  crawl: string,
  plds: readonly string[],
): Promise<{ url: string; pld: string }[]> {
  if (plds.length === 0) return [];
  const { rows } = await pool.query(
    `SELECT url, pld FROM context
     WHERE crawl = $1 AND pld = ANY($2::text[]) AND answer IS NULL ORDER BY url`,
    [crawl, plds],
  );
  return rows.map((row) => ({ url: JSON.parse(row.url) as string, pld: row.pld as string }));
}

/**
 * Keeps `owner` registered as a live worker of the crawl with its fetch `slots` (the round-end
 * rule counts them) and extends the leases it still holds, both for `leaseMs`; returns the PLDs
 * renewed (the others were lost).
 */
export async function renewLeases(
  pool: pg.Pool,
  crawl: string,
  owner: string,
  slots: number,
  plds: readonly string[],
  leaseMs: number,
): Promise<Set<string>> {
  const { rows } = await inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO crawl_worker (crawl, id, slots, expires_at)
       VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (crawl, id) DO UPDATE SET slots = excluded.slots, expires_at = excluded.expires_at,
         failure = NULL`,
      [crawl, owner, slots, leaseMs],
    );
    return client.query(
      `UPDATE pld_lease SET expires_at = clock_timestamp() + $4 * interval '1 millisecond'
       WHERE crawl = $1 AND owner = $2 AND pld = ANY($3::text[]) AND expires_at > clock_timestamp()
       RETURNING pld`,
      [crawl, owner, [...plds].sort(), leaseMs],
    );
  });
  return new Set(rows.map((r) => r.pld as string));
}

/** `owner` no longer serves the crawl: its slots stop counting at once. */
export async function leaveCrawl(pool: pg.Pool, crawl: string, owner: string): Promise<void> {
  await pool.query('DELETE FROM crawl_worker WHERE crawl = $1 AND id = $2', [crawl, owner]);
}

/**
 * `owner` stopped serving the crawl on an error: its slots stop counting at once, and the error
 * stays (as JSON: a message may quote anything) for the coordinator to report.
 */
export async function reportFailure(
  pool: pg.Pool,
  crawl: string,
  owner: string,
  message: string,
): Promise<void> {
  await pool.query(
    `INSERT INTO crawl_worker (crawl, id, slots, expires_at, failure) VALUES ($1, $2, 0, clock_timestamp(), $3)
     ON CONFLICT (crawl, id) DO UPDATE SET expires_at = clock_timestamp(), failure = excluded.failure`,
    [crawl, owner, JSON.stringify(message)],
  );
}

/** A worker of a crawl as the coordinator watches it. */
export interface WorkerView {
  readonly id: string;
  /** Registered and renewing (its row has not expired). */
  readonly live: boolean;
  /** The error it stopped on, if it did. */
  readonly failure: string | null;
  /** The PLDs it holds unexpired leases on. */
  readonly leased: number;
}

/** The workers registered with the crawl or holding its leases, and how many live workers serve other crawls. */
export async function crawlWorkers(
  pool: pg.Pool,
  crawl: string,
): Promise<{ workers: WorkerView[]; elsewhere: number }> {
  const { rows } = await pool.query(
    `WITH leases AS (SELECT owner, count(*)::int AS n FROM pld_lease
                     WHERE crawl = $1 AND expires_at > clock_timestamp() GROUP BY owner)
     SELECT coalesce(w.id, l.owner) AS id, coalesce(w.expires_at > clock_timestamp(), true) AS live,
       w.failure, coalesce(l.n, 0) AS leased
     FROM (SELECT * FROM crawl_worker WHERE crawl = $1) w FULL JOIN leases l ON l.owner = w.id
     ORDER BY 1`,
    [crawl],
  );
  const elsewhere = await pool.query(
    `SELECT count(DISTINCT id)::int AS n FROM crawl_worker
     WHERE crawl <> $1 AND expires_at > clock_timestamp()
       AND id NOT IN (SELECT id FROM crawl_worker WHERE crawl = $1 AND expires_at > clock_timestamp())`,
    [crawl],
  );
  return {
    workers: rows.map((row) => ({
      id: row.id,
      live: row.live,
      failure: row.failure === null ? null : JSON.parse(row.failure),
      leased: row.leased,
    })),
    elsewhere: elsewhere.rows[0].n,
  };
}

/** Gives a lease back with its politeness state, robots.txt answers and 304 trust, for whoever leases the PLD next. */
export async function releaseLease(pool: pg.Pool, crawl: string, owner: string, state: Lease): Promise<void> {
  await pool.query(
    `UPDATE pld_lease SET owner = NULL, expires_at = NULL, next_allowed_ms = $4, delay_ms = $5,
       robots = coalesce($6, robots), revisit_trust = $7
     WHERE crawl = $1 AND pld = $2 AND owner = $3`,
    [crawl, state.pld, owner, state.nextAllowedMs, state.delayMs, state.robots, state.trust],
  );
}

/** The PLD's next URL to fetch: most in-links first, then by URL (the one-process queue's order). */
export async function nextUrl(pool: pg.Pool, crawl: string, pld: string): Promise<Queued | null> {
  const { rows } = await pool.query(
    `SELECT url, depth, round, previous, continues FROM frontier
     WHERE crawl = $1 AND pld = $2 AND state = 'waiting' AND round IS NOT NULL
     ORDER BY inlinks DESC, url COLLATE "C" LIMIT 1`,
    [crawl, pld],
  );
  const row = rows[0];
  return row
    ? {
        url: row.url,
        depth: row.depth,
        round: row.round,
        previous: row.previous && JSON.parse(row.previous),
        continues: row.continues,
      }
    : null;
}

/** The records of the PLD's URLs recorded so far, but those handed over to another PLD. */
export async function pldRecords(pool: pg.Pool, crawl: string, pld: string): Promise<DocumentRecord[]> {
  const { rows } = await pool.query(
    'SELECT record FROM result WHERE crawl = $1 AND pld = $2 AND handed_over IS NULL ORDER BY url',
    [crawl, pld],
  );
  return rows.map((r) => JSON.parse(r.record) as DocumentRecord);
}

/** Stores exchanges of the fetcher `source` (a worker's, for one crawl). */
async function insertExchanges(
  client: pg.PoolClient | pg.Pool,
  crawl: string,
  source: string,
  exchanges: readonly StoredExchange[],
): Promise<void> {
  if (exchanges.length === 0) return;
  await client.query(
    `INSERT INTO exchange (crawl, source, id, record, body)
     SELECT $1, $2, i, r, b FROM unnest($3::int[], $4::text[], $5::bytea[]) WITH ORDINALITY AS t(i, r, b, n)
     ORDER BY n ON CONFLICT DO NOTHING`,
    [crawl, source, exchanges.map((e) => e.id), exchanges.map((e) => e.record), exchanges.map((e) => e.body)],
  );
}

/** Stores exchanges no recorded outcome took (a worker leaving a crawl): they did happen. */
export async function storeExchanges(
  pool: pg.Pool,
  crawl: string,
  source: string,
  exchanges: readonly StoredExchange[],
): Promise<void> {
  await insertExchanges(pool, crawl, source, exchanges);
}

/**
 * Queues links of a document at `depth` as candidates of a coming round (in-links counted). A
 * continued fetch keeps the depth of the URL it continues: its document's links are that URL's.
 */
async function queueLinks(client: pg.PoolClient, crawl: string, links: readonly string[], depth: number) {
  if (links.length === 0) return;
  const sorted = [...links].sort();
  await client.query(
    `INSERT INTO frontier (crawl, url, pld, depth, inlinks)
     SELECT $1, u, p, $4, 1 FROM unnest($2::text[], $3::text[]) AS t(u, p) ORDER BY u
     ON CONFLICT (crawl, url_key(url)) DO UPDATE SET inlinks = frontier.inlinks + 1,
       depth = CASE WHEN frontier.continues IS NULL THEN least(frontier.depth, excluded.depth)
         ELSE frontier.depth END`,
    [crawl, sorted, sorted.map(urlPld), depth + 1],
  );
}

/** A frontier row's state as the place redirect-targets.ts rules on (no row: new). */
function placeOf(
  row: { state: string; round: number | null; continues: string | null } | undefined,
): FrontierPlace {
  if (!row) return 'new';
  if (row.state === 'elsewhere' || row.continues !== null) return 'elsewhere';
  if (row.state === 'done') return 'done';
  return row.round === null ? 'candidate' : 'queued';
}

/**
 * The redirect targets of one outcome that the redirects take over (redirect-targets.ts): each
 * becomes fetched elsewhere, but for `handedOver`, the URL of another PLD where the fetch stopped,
 * which waits in `round` for its PLD's holder as the continuation of `continues`'s fetch. Called
 * under the frontier lock, so the places read are still the places written over.
 */
async function takeOverTargets(
  client: pg.PoolClient,
  crawl: string,
  targets: readonly string[],
  handedOver: string | null,
  at: { round: number; depth: number; continues: string },
): Promise<void> {
  if (targets.length === 0) return;
  const { rows } = await client.query(
    `SELECT url, state, round, continues FROM frontier
     WHERE crawl = $1 AND url_key(url) IN (SELECT url_key(u) FROM unnest($2::text[]) AS t(u))`,
    [crawl, targets],
  );
  const known = new Map(rows.map((row) => [row.url as string, row]));
  const taken = targets.filter((url) => redirectTakesOver(placeOf(known.get(url))));
  const elsewhere = taken.filter((url) => url !== handedOver).sort();
  if (elsewhere.length > 0) {
    await client.query(
      `INSERT INTO frontier (crawl, url, pld, depth, state)
       SELECT $1, u, p, $4, 'elsewhere' FROM unnest($2::text[], $3::text[]) AS t(u, p) ORDER BY u
       ON CONFLICT (crawl, url_key(url)) DO UPDATE SET state = 'elsewhere'`,
      [crawl, elsewhere, elsewhere.map(urlPld), at.depth],
    );
  }
  if (handedOver !== null && taken.includes(handedOver)) {
    await client.query(
      `INSERT INTO frontier (crawl, url, pld, round, depth, continues) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (crawl, url_key(url)) DO UPDATE SET round = excluded.round, depth = excluded.depth,
         continues = excluded.continues`,
      [crawl, handedOver, urlPld(handedOver), at.round, at.depth, at.continues],
    );
  }
}

/**
 * Records one URL's outcome, exactly once, while `owner` still holds its PLD: the exchanges its
 * worker made since its last outcome (`source`: that worker's fetcher), the result row, the
 * frontier row marked done, the politeness state, redirect targets taken over as fetched elsewhere
 * (a target in another PLD where the fetch stopped then waits in this round for that PLD's holder,
 * to continue the fetch), and the links as candidates, all in one transaction. False when the
 * lease was lost or the URL was recorded already.
 */
export async function recordOutcome(
  pool: pg.Pool,
  crawl: string,
  owner: string,
  lease: Lease,
  outcome: Outcome,
  source: string,
  exchanges: readonly StoredExchange[],
): Promise<boolean> {
  const { url, depth, record, handedOver } = outcome;
  return inTransaction(pool, async (client) => {
    const inserted = await client.query(
      `INSERT INTO result (crawl, url, pld, depth, record, statements, handed_over, recorded_by,
         response_source, response_id, carried)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
      [
        crawl,
        url,
        lease.pld,
        depth,
        JSON.stringify(record),
        JSON.stringify(outcome.statements),
        handedOver ? JSON.stringify({ ...handedOver, body: null }) : null,
        owner,
        outcome.response === null ? null : source,
        outcome.response,
        outcome.carried,
      ],
    );
    if (inserted.rowCount !== 1) return false;
    await insertExchanges(client, crawl, source, exchanges);
    // the frontier rows an outcome writes (its own, redirect targets, links) are any of the crawl's:
    // two outcomes that each hold one the other wants deadlock (seen with two workers of an
    // expansion, whose documents link each other's URLs), so the crawl's outcomes write them one
    // at a time; the lock lasts to the commit, a few statements
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FRONTIER_LOCK, crawl]);
    await client.query(`UPDATE frontier SET state = 'done' WHERE crawl = $1 AND url_key(url) = url_key($2)`, [
      crawl,
      url,
    ]);
    const targets = [...new Set(record.redirects.map((hop) => hop.to))];
    await takeOverTargets(client, crawl, targets, handedOver?.finalUrl ?? null, {
      round: outcome.round,
      depth,
      continues: outcome.continues ?? url,
    });
    const news: string[] = [...targets, ...outcome.links];
    await queueLinks(client, crawl, outcome.links, depth);
    await addPlds(client, crawl, news.map(urlPld), lease.delayMs);
    // last, so that the lease row is locked only briefly (renewals update it too)
    const held = await client.query(
      `UPDATE pld_lease SET next_allowed_ms = $4, delay_ms = $5, robots = coalesce($6, robots),
         revisit_trust = $7
       WHERE crawl = $1 AND pld = $2 AND owner = $3 AND expires_at > clock_timestamp()`,
      [crawl, lease.pld, owner, lease.nextAllowedMs, lease.delayMs, lease.robots, lease.trust],
    );
    if (held.rowCount !== 1) throw LEASE_LOST;
    return true;
  }).catch((error: unknown) => {
    if (error === LEASE_LOST) return false;
    throw error;
  });
}

/** Thrown inside recordOutcome's transaction to roll it back when the lease turns out lost. */
const LEASE_LOST = new Error('lease lost');

/** A recorded URL as the coordinator reads it back. */
export interface StoredResult {
  readonly url: string;
  readonly depth: number;
  readonly record: DocumentRecord;
  readonly statements: readonly Statement[];
  readonly handedOver: FetchResult | null;
  /** A 304 whose previous statements are carried over (`statements` holds none of them). */
  readonly carried: boolean;
  /** The URL asked for whose fetch this one continued (Queued.continues), or null: a URL of its own. */
  readonly continues: string | null;
}

/**
 * Results of round `round` that carried a 304's statements over, below `maxDepth` (their links
 * count). The round is read in JavaScript: PostgreSQL's json refuses an escaped NUL or lone
 * surrogate (a record may hold one, in an error message), so no stored JSON is cast in SQL.
 */
export async function carriedResults(
  pool: pg.Pool,
  crawl: string,
  round: number,
  maxDepth: number,
): Promise<{ url: string; depth: number; record: DocumentRecord }[]> {
  const { rows } = await pool.query(
    `SELECT url, depth, record FROM result WHERE crawl = $1 AND carried AND depth < $2
     ORDER BY url COLLATE "C"`,
    [crawl, maxDepth],
  );
  return rows
    .map((row) => ({ url: row.url as string, depth: row.depth as number, record: JSON.parse(row.record) }))
    .filter(({ record }) => record.round === round);
}

/** A stored exchange, and the URL whose final response it carried, if any. */
export interface ArchivedExchange {
  readonly record: string;
  readonly body: Buffer | null;
  readonly responseOf: string | null;
}

/** The crawl's exchanges in the order they were stored, `batch` rows at a time. */
export async function* readExchanges(
  pool: pg.Pool,
  crawl: string,
  batch = 200,
): AsyncGenerator<ArchivedExchange[]> {
  let after = 0;
  for (;;) {
    const { rows } = await pool.query(
      `SELECT e.seq, e.record, e.body, r.url AS response_of FROM exchange e
       LEFT JOIN result r ON r.crawl = e.crawl AND r.response_source = e.source AND r.response_id = e.id
       WHERE e.crawl = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`,
      [crawl, after, batch],
    );
    if (rows.length > 0) {
      yield rows.map((row) => ({ record: row.record, body: row.body, responseOf: row.response_of }));
    }
    if (rows.length < batch) return;
    after = Number(rows.at(-1).seq);
  }
}

/** The crawl's results in URL order, `batch` rows at a time (a crawl's statements are never held whole). */
export async function* readResults(pool: pg.Pool, crawl: string, batch = 500): AsyncGenerator<StoredResult> {
  let after = '';
  for (;;) {
    const { rows } = await pool.query(
      `SELECT r.url, r.depth, r.record, r.statements, r.handed_over, r.carried, f.continues
       FROM result r LEFT JOIN frontier f ON f.crawl = r.crawl AND url_key(f.url) = url_key(r.url)
       WHERE r.crawl = $1 AND r.url COLLATE "C" > $2 ORDER BY r.url COLLATE "C" LIMIT $3`,
      [crawl, after, batch],
    );
    for (const row of rows) {
      yield {
        url: row.url,
        depth: row.depth,
        record: JSON.parse(row.record),
        statements: JSON.parse(row.statements),
        handedOver: row.handed_over === null ? null : { ...JSON.parse(row.handed_over), body: null },
        carried: row.carried,
        continues: row.continues,
      };
    }
    if (rows.length < batch) return;
    after = rows.at(-1).url;
  }
}

/** The URLs that joined each round, for the journal's round lines (continued fetches are no URLs of their own). */
export async function roundMembers(pool: pg.Pool, crawl: string): Promise<Map<number, JoinedUrl[]>> {
  const { rows } = await pool.query(
    `SELECT round, url, depth FROM frontier WHERE crawl = $1 AND round IS NOT NULL AND continues IS NULL
     ORDER BY round, url COLLATE "C"`,
    [crawl],
  );
  const rounds = new Map<number, JoinedUrl[]>();
  for (const row of rows) {
    const list = rounds.get(row.round) ?? [];
    list.push([row.url, row.depth]);
    rounds.set(row.round, list);
  }
  return rounds;
}
