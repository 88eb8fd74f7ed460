import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/**
 * The coordinator's tables. Times that pace requests (next_allowed_ms) are the workers' clocks in
 * epoch ms, so workers' clocks must agree (NTP) to well under the politeness delay; lease expiry is
 * the database's clock alone, so it needs no agreement.
 *
 * - crawl: one row per crawl (its id: the run's name and a random part the coordinator keeps in
 *   the run's crawl folder, so that two observatories sharing the database never share a crawl),
 *   its plan, its config, the current round, and whether its archive and journal were written (a
 *   rerun then reads the journal, and does not write the archive twice).
 * - frontier: every URL the crawl knows, unique per crawl; round is null while it is only a
 *   candidate for a coming round, state says whether it still waits to be fetched; `previous` is
 *   the URL's previous observation (JSON) that a re-visit asks with (a seed's only, as in one process);
 *   `continues` is set on a URL that a fetch reached by a redirect from another PLD, where that fetch
 *   stopped (redirect-targets.ts: not in a round yet, so not a URL of its own): the URL asked for
 *   whose fetch it continues. It is fetched in that URL's round by its own PLD's holder, and its
 *   outcome completes that URL's row instead of getting one (coordinate.ts writeJournal).
 * - pld_lease: one row per PLD of the crawl: who holds it until when, and its politeness state
 *   (next allowed request start, delay in force), the robots.txt answers of its authorities
 *   (the web stage's RobotsEntry list as JSON) and the re-visit policy's trust in its 304s
 *   (crawl stage's PldTrust), which move to whoever holds it next.
 * - result: one row per URL recorded: its document record and its statements (JSON), inserted in
 *   the transaction that marks its frontier row done, so the primary key makes it exactly once;
 *   `response` names the exchange that carried its final response (its WARC pointer comes from
 *   there), `carried` is set for a 304 whose previous statements the coordinator carries over.
 * - context: the remote JSON-LD contexts of the crawl, one row per URL (as JSON: the URL as the
 *   document named it, unnormalised): asked (no answer yet) of the holder of `pld`, then its
 *   answer (JSON: the text, or why it failed), read by every worker, so that a context is fetched
 *   once per crawl and only under a PLD's lease; `moved` (JSON) is where its fetch goes on once a
 *   redirect or Link alternate led it into another PLD, `pld` then.
 * - exchange: every HTTP exchange a worker made (docs/archive.md), keyed by the worker's fetcher
 *   (`source`, unique per worker and crawl) and its number there; the coordinator writes them into
 *   the run's WARC archive. `body` holds the response body as received, `record` the rest.
 * - crawl_worker: the workers serving a crawl and their fetch slots, each row kept alive by its
 *   worker's lease renewals (the database's clock), so the round-end rule counts the slots of every
 *   live worker, leases held or not, and a worker that died stops counting when its leases expire.
 *   A worker that stopped on an error leaves its row expired with the error (`failure`, JSON), for
 *   the coordinator to report.
 *
 * What the Web sent is stored so that it comes back exactly as read, whatever it holds: TEXT
 * cannot hold a NUL character, and silently makes a lone surrogate U+FFFD, so every text read
 * from outside (statements, records with their error messages and headers, robots.txt answers, a
 * context's answer and the URL a document named it by, a worker's failure) is stored as JSON, whose
 * escapes round-trip any string; bodies as received are `bytea`. Only URLs the frontier normalised
 * (WHATWG URL: ASCII, no control characters) and PLDs are stored as they are. A URL may be longer
 * than a btree entry can be (about 2,700 bytes; a URL is up to MAX_URL_LENGTH, 8,192 characters), so
 * URLs are unique by url_key (SHA-256 of the stored text), not by the text itself.
 *
 * Columns added after the first release are added with ALTER TABLE too, so that a database that
 * holds an older crawl gets them.
 */
const SCHEMA = `
DO $$ BEGIN
  IF to_regprocedure('url_key(text)') IS NULL THEN
    -- convert_to is only STABLE (conversions can be redefined); to UTF8 in a UTF8 database it is the identity
    CREATE FUNCTION url_key(text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS 'SELECT sha256(convert_to($1, ''UTF8''))';
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS crawl (
  id text PRIMARY KEY,
  plan jsonb NOT NULL,
  config jsonb NOT NULL,
  round integer NOT NULL DEFAULT 0,
  state text NOT NULL DEFAULT 'crawling' CHECK (state IN ('crawling', 'done')),
  journaled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
ALTER TABLE crawl ADD COLUMN IF NOT EXISTS journaled boolean NOT NULL DEFAULT false;
CREATE TABLE IF NOT EXISTS frontier (
  crawl text NOT NULL REFERENCES crawl ON DELETE CASCADE,
  url text NOT NULL,
  pld text NOT NULL,
  round integer,
  depth integer NOT NULL,
  inlinks integer NOT NULL DEFAULT 0,
  state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'done', 'elsewhere')),
  previous text,
  continues text
);
ALTER TABLE frontier ADD COLUMN IF NOT EXISTS previous text;
ALTER TABLE frontier ADD COLUMN IF NOT EXISTS continues text;
CREATE UNIQUE INDEX IF NOT EXISTS frontier_url ON frontier (crawl, url_key(url));
ALTER TABLE frontier DROP CONSTRAINT IF EXISTS frontier_pkey;
CREATE INDEX IF NOT EXISTS frontier_queued ON frontier (crawl, pld) WHERE state = 'waiting' AND round IS NOT NULL;
CREATE INDEX IF NOT EXISTS frontier_candidates ON frontier (crawl, depth) WHERE state = 'waiting' AND round IS NULL;
CREATE TABLE IF NOT EXISTS pld_lease (
  crawl text NOT NULL REFERENCES crawl ON DELETE CASCADE,
  pld text NOT NULL,
  owner text,
  expires_at timestamptz,
  next_allowed_ms double precision NOT NULL DEFAULT 0,
  delay_ms double precision NOT NULL,
  robots text NOT NULL DEFAULT '[]',
  revisit_trust text NOT NULL DEFAULT 'unchecked',
  PRIMARY KEY (crawl, pld)
);
ALTER TABLE pld_lease ADD COLUMN IF NOT EXISTS robots text NOT NULL DEFAULT '[]';
ALTER TABLE pld_lease ADD COLUMN IF NOT EXISTS revisit_trust text NOT NULL DEFAULT 'unchecked';
CREATE TABLE IF NOT EXISTS result (
  crawl text NOT NULL REFERENCES crawl ON DELETE CASCADE,
  url text NOT NULL,
  pld text NOT NULL,
  depth integer NOT NULL,
  record text NOT NULL,
  statements text NOT NULL,
  handed_over text,
  recorded_by text NOT NULL,
  response_source text,
  response_id integer,
  carried boolean NOT NULL DEFAULT false
);
ALTER TABLE result ADD COLUMN IF NOT EXISTS response_source text;
ALTER TABLE result ADD COLUMN IF NOT EXISTS response_id integer;
ALTER TABLE result ADD COLUMN IF NOT EXISTS carried boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX IF NOT EXISTS result_url ON result (crawl, url_key(url));
ALTER TABLE result DROP CONSTRAINT IF EXISTS result_pkey;
CREATE INDEX IF NOT EXISTS result_pld ON result (crawl, pld);
CREATE INDEX IF NOT EXISTS result_response ON result (crawl, response_source, response_id)
  WHERE response_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS context (
  crawl text NOT NULL REFERENCES crawl ON DELETE CASCADE,
  url text NOT NULL,
  pld text NOT NULL,
  answer text,
  moved text
);
ALTER TABLE context ADD COLUMN IF NOT EXISTS moved text;
DO $$ BEGIN
  -- schema 4 and before: the URL and the answer as TEXT (text, error); as JSON since
  IF EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = 'context' AND column_name = 'error') THEN
    ALTER TABLE context ADD COLUMN IF NOT EXISTS answer text;
    UPDATE context SET url = to_json(url)::text,
      answer = CASE WHEN text IS NOT NULL OR error IS NOT NULL
        THEN json_build_object('text', text, 'error', error)::text END;
    ALTER TABLE context DROP CONSTRAINT IF EXISTS context_pkey, DROP COLUMN text, DROP COLUMN error;
  END IF;
END $$;
CREATE UNIQUE INDEX IF NOT EXISTS context_url ON context (crawl, url_key(url));
CREATE INDEX IF NOT EXISTS context_pending ON context (crawl, pld) WHERE answer IS NULL;
CREATE TABLE IF NOT EXISTS exchange (
  crawl text NOT NULL REFERENCES crawl ON DELETE CASCADE,
  seq bigserial,
  source text NOT NULL,
  id integer NOT NULL,
  record text NOT NULL,
  body bytea,
  PRIMARY KEY (crawl, seq),
  UNIQUE (crawl, source, id)
);
CREATE TABLE IF NOT EXISTS crawl_worker (
  crawl text NOT NULL REFERENCES crawl ON DELETE CASCADE,
  id text NOT NULL,
  slots integer NOT NULL,
  expires_at timestamptz NOT NULL,
  failure text,
  PRIMARY KEY (crawl, id)
);
ALTER TABLE crawl_worker ADD COLUMN IF NOT EXISTS failure text;
`;

/**
 * The schema's version, written as the crawl table's comment by the upgrade itself (in its
 * transaction): change it with SCHEMA. Where the database says it, SCHEMA has nothing to change,
 * and a worker connecting while others crawl runs none of it.
 */
const VERSION = 'observatory distributed schema 5';

/**
 * How long the upgrade waits for one table lock before it gives way. SCHEMA's ALTER TABLEs lock
 * whole tables in their own order, and workers' queries lock them in others (leasePld: pld_lease,
 * then frontier), so an upgrade of a database that workers crawl can deadlock with them; waiting
 * less than PostgreSQL's deadlock_timeout (1 s by default), the upgrade is the one that gives up,
 * before a worker's query can be chosen as the deadlock's victim, and it releases every lock it
 * took (a worker's query waits at most this long behind it). Then it tries again.
 */
const LOCK_TIMEOUT_MS = 200;
const UPGRADE_ATTEMPTS = 100;
/** lock_not_available (lock_timeout), deadlock_detected. */
const GAVE_WAY = new Set(['55P03', '40P01']);

/** Creates the tables where they are missing; every worker and coordinator runs it on connecting. */
export async function ensureSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    // one at a time: concurrent CREATE ... IF NOT EXISTS can still collide in the catalogue
    await client.query('SELECT pg_advisory_lock(18)');
    const { rows } = await client.query(
      `SELECT obj_description(to_regclass('crawl'), 'pg_class') AS version`,
    );
    if (rows[0].version !== VERSION) await upgrade(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock(18)').catch(() => {});
    client.release();
  }
}

/** Runs SCHEMA in one transaction, again after a short random pause whenever it gave way to workers. */
async function upgrade(client: pg.PoolClient): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(
        `BEGIN; SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS};${SCHEMA}COMMENT ON TABLE crawl IS '${VERSION}'; COMMIT;`,
      );
      return;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (attempt >= UPGRADE_ATTEMPTS || !GAVE_WAY.has((error as { code?: string }).code ?? '')) throw error;
      await sleep(LOCK_TIMEOUT_MS * (0.5 + Math.random()));
    }
  }
}
