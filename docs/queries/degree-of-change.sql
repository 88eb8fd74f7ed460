-- Degree of change: for every content change, triples added and removed, and their share of the
-- document's statements in the newer observation.
SELECT
  c.snapshot,
  c.url,
  c.previous_snapshot,
  c.added,
  c.removed,
  d.statements,
  round((c.added + c.removed) / greatest(d.statements, 1), 3) AS churn
FROM read_parquet('snapshots/*/changes.parquet') AS c
JOIN read_parquet('snapshots/*/documents.parquet') AS d USING (snapshot, url)
WHERE c.changed
ORDER BY churn DESC, c.snapshot, c.url;
