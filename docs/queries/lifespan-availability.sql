-- Lifespan and availability per document: first and last observation, how often it was
-- attempted, how often it returned RDF, and its last status (the kernel expansion's crawls are
-- no observations).
SELECT
  url,
  min(fetched_at) AS first_seen,
  max(fetched_at) AS last_seen,
  count(*) AS attempts,
  count(*) FILTER (error IS NULL OR error = 'parse') AS available,
  round(count(*) FILTER (error IS NULL OR error = 'parse') / count(*), 3) AS availability,
  arg_max(status, fetched_at) AS last_status,
  arg_max(error, fetched_at) AS last_error
FROM read_parquet('snapshots/*/documents.parquet')
WHERE kind <> 'expand'
GROUP BY url
ORDER BY availability, url;
