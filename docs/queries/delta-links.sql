-- Links gained and lost: statements whose object is an IRI (rdf:type aside), by the host they point
-- to (lower-cased, without user and port; the scheme, `urn:`, for an IRI without a host).
WITH links AS (
  SELECT op, url,
    coalesce(nullif(lower(regexp_extract(object, '^[^:/?#]+://(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)', 1)), ''),
      regexp_extract(object, '^([^:]*:)', 1)) AS target
  FROM read_parquet('snapshots/*/delta.parquet')
  WHERE object_kind = 'iri' AND predicate <> 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type'
)
SELECT
  target,
  count(*) FILTER (op = 'added') AS gained,
  count(*) FILTER (op = 'removed') AS lost,
  count(DISTINCT url) AS documents
FROM links
GROUP BY target
ORDER BY gained + lost DESC, target;
