-- Change frequency per pay-level domain: documents, comparisons and the share that changed.
SELECT
  d.pld,
  count(DISTINCT d.url) AS documents,
  count(c.changed) AS comparisons,
  count(*) FILTER (c.changed) AS changes,
  round(count(*) FILTER (c.changed) / nullif(count(c.changed), 0), 3) AS change_rate
FROM read_parquet('snapshots/*/changes.parquet') AS c
JOIN read_parquet('snapshots/*/documents.parquet') AS d USING (snapshot, url)
GROUP BY d.pld
ORDER BY comparisons DESC, d.pld;
