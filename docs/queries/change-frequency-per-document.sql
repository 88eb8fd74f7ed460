-- Change frequency per document: of the observations that could be compared with the previous
-- one (changed is not null), the share whose content changed.
SELECT
  url,
  count(*) AS observations,
  count(changed) AS comparisons,
  count(*) FILTER (changed) AS changes,
  round(count(*) FILTER (changed) / nullif(count(changed), 0), 3) AS change_rate
FROM read_parquet('snapshots/*/changes.parquet')
GROUP BY url
ORDER BY change_rate DESC NULLS LAST, url;
