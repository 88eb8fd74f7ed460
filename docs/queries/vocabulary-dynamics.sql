-- Vocabulary-dependent dynamics: for every class a document declares for itself
-- (<document> rdf:type C), how many comparisons and changes documents of that class had.
WITH typed AS (
  SELECT DISTINCT q.snapshot, q.graph, q.object AS class
  FROM read_parquet('snapshots/*/quads.parquet') AS q
  WHERE q.predicate = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type'
    AND q.object_kind = 'iri'
    AND q.subject = q.graph
)
SELECT
  t.class,
  count(DISTINCT d.url) AS documents,
  count(c.changed) AS comparisons,
  count(*) FILTER (c.changed) AS changes,
  round(count(*) FILTER (c.changed) / nullif(count(c.changed), 0), 3) AS change_rate
FROM typed AS t
JOIN read_parquet('snapshots/*/documents.parquet') AS d ON d.snapshot = t.snapshot AND d.final_url = t.graph
JOIN read_parquet('snapshots/*/changes.parquet') AS c ON c.snapshot = d.snapshot AND c.url = d.url
GROUP BY t.class
ORDER BY comparisons DESC, t.class;
