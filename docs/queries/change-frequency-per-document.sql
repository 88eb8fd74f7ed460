-- Change frequency per document: of the observations that could be compared with the previous
-- one (changed is not null), the share whose content changed; and per unit of time, the changes
-- seen per week of observed time (the gaps, from the previous observation's fetch to this one's,
-- of the compared observations). A comparison sees at most one change however many happened in its
-- gap, so both figures underestimate documents that change often; the portal's Dynamics page
-- corrects for that with Cho and Garcia-Molina's estimator for irregular gaps (docs/portal.md).
SELECT
  c.url,
  count(*) AS observations,
  count(c.changed) AS comparisons,
  count(*) FILTER (c.changed) AS changes,
  round(count(*) FILTER (c.changed) / nullif(count(c.changed), 0), 3) AS change_rate,
  -- a gap in whole seconds, as date_diff('second', ...) counts them; written with epoch_ms so that
  -- DuckDB 0.9 (the portal's SQL console), which has no date_diff for TIMESTAMPTZ, runs it too
  round(sum(epoch_ms(d.fetched_at) // 1000 - epoch_ms(c.previous_fetched_at) // 1000)
    FILTER (c.changed IS NOT NULL) / 86400, 1) AS observed_days,
  round(count(*) FILTER (c.changed)
    / nullif(sum(epoch_ms(d.fetched_at) // 1000 - epoch_ms(c.previous_fetched_at) // 1000)
      FILTER (c.changed IS NOT NULL) / 604800, 0), 3)
    AS changes_per_week_seen
FROM read_parquet('snapshots/*/changes.parquet') AS c
JOIN read_parquet('snapshots/*/documents.parquet') AS d USING (snapshot, url)
GROUP BY c.url
ORDER BY change_rate DESC NULLS LAST, c.url;
