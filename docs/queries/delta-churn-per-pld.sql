-- Churn per PLD, week by week: statements added and removed in the changed documents of each
-- pay-level domain. A week is a weekly snapshot and the interval snapshots (re-visits) after it,
-- up to the next weekly one, as the portal's "What changes" page counts it.
WITH weeks AS (
  SELECT DISTINCT snapshot AS week, snapshot_start AS week_start
  FROM read_parquet('snapshots/*/changes.parquet')
  WHERE kind = 'weekly'
)
SELECT
  coalesce(w.week, x.snapshot) AS week,
  d.pld,
  count(DISTINCT x.snapshot || ' ' || x.url) AS changed_documents,
  count(*) FILTER (x.op = 'added') AS added,
  count(*) FILTER (x.op = 'removed') AS removed
FROM read_parquet('snapshots/*/delta.parquet') AS x
JOIN read_parquet('snapshots/*/documents.parquet') AS d ON d.snapshot = x.snapshot AND d.url = x.url
ASOF LEFT JOIN weeks AS w ON x.snapshot_start >= w.week_start
GROUP BY ALL
ORDER BY week, added + removed DESC, d.pld;
