-- What changes (Käfer et al., ESWC 2013): the predicates, the classes (rdf:type objects) and the link
-- targets (the host an IRI object points to, rdf:type aside; lower-cased, without user and port, the
-- scheme for an IRI without a host) of the statements that changed documents gained and lost against
-- their previous observation; within each kind, most churned first.
WITH terms AS (
  SELECT 'predicate' AS kind, predicate AS term, op, url
  FROM read_parquet('snapshots/*/delta.parquet')
  UNION ALL
  SELECT 'class', object, op, url
  FROM read_parquet('snapshots/*/delta.parquet')
  WHERE predicate = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type' AND object_kind = 'iri'
  UNION ALL
  SELECT 'link target',
    coalesce(nullif(lower(regexp_extract(object, '^[^:/?#]+://(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)', 1)), ''),
      regexp_extract(object, '^([^:]*:)', 1)),
    op, url
  FROM read_parquet('snapshots/*/delta.parquet')
  WHERE object_kind = 'iri' AND predicate <> 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type'
)
SELECT
  kind,
  term,
  count(*) FILTER (op = 'added') AS added,
  count(*) FILTER (op = 'removed') AS removed,
  count(DISTINCT url) AS documents
FROM terms
GROUP BY kind, term
ORDER BY kind, added + removed DESC, term;
