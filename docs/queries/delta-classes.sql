-- Classes gained and lost: the objects of rdf:type statements added and removed (any subject of
-- the document, not only the document itself), most churned first.
SELECT
  object AS class,
  count(*) FILTER (op = 'added') AS added,
  count(*) FILTER (op = 'removed') AS removed,
  count(DISTINCT url) AS documents
FROM read_parquet('snapshots/*/delta.parquet')
WHERE predicate = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type' AND object_kind = 'iri'
GROUP BY object
ORDER BY added + removed DESC, class;
