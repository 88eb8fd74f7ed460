-- Statements per snapshot, counted twice to show the exact join from quads to documents: a graph
-- is downloaded once per crawl, by the row whose downloaded_by is its own url, and its quads are
-- those whose graph is that row's final_url. Both counts agree for every snapshot of schema 2.
WITH owners AS (
  SELECT snapshot, url, final_url, statements
  FROM read_parquet('snapshots/*/documents.parquet')
  WHERE downloaded_by = url
)
SELECT
  o.snapshot,
  count(DISTINCT o.url) FILTER (o.statements > 0) AS graphs,
  (SELECT sum(statements) FROM owners AS s WHERE s.snapshot = o.snapshot) AS statements,
  count(q.graph) AS quads
FROM owners AS o
LEFT JOIN read_parquet('snapshots/*/quads.parquet') AS q ON q.snapshot = o.snapshot AND q.graph = o.final_url
GROUP BY o.snapshot
ORDER BY o.snapshot;
