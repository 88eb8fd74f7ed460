-- What changes (Käfer et al., ESWC 2013): the predicates of the statements that changed documents
-- gained and lost against their previous observation, most churned first.
SELECT
  predicate,
  count(*) FILTER (op = 'added') AS added,
  count(*) FILTER (op = 'removed') AS removed,
  count(DISTINCT url) AS documents
FROM read_parquet('snapshots/*/delta.parquet')
GROUP BY predicate
ORDER BY added + removed DESC, predicate;
