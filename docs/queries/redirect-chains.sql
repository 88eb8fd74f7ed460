-- Redirect chains: every redirected document per snapshot, its hops in order, the statuses on
-- the way and where it ended.
SELECT
  r.snapshot,
  r.url,
  count(*) AS hops,
  string_agg(CAST(r.status AS VARCHAR), ' ' ORDER BY r.hop) AS statuses,
  string_agg(r.to_url, ' -> ' ORDER BY r.hop) AS chain,
  any_value(d.final_url) AS final_url,
  any_value(d.status) AS final_status
FROM read_parquet('snapshots/*/redirects.parquet') AS r
JOIN read_parquet('snapshots/*/documents.parquet') AS d USING (snapshot, url)
GROUP BY r.snapshot, r.url
ORDER BY hops DESC, r.snapshot, r.url;
