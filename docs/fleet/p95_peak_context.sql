-- The 95th percentile (linear interpolation) of sessions' peak context, per host and over the
-- whole fleet (host NULL), with the session count and the largest peak.
SELECT
    host,
    count(*) AS sessions,
    quantile_cont(peak_context, 0.95) AS p95_peak_context,
    max(peak_context) AS max_peak_context
FROM ctxhooks_records
WHERE kind = 'session' AND peak_context IS NOT NULL
GROUP BY ROLLUP (host)
ORDER BY host NULLS LAST;
