-- Compactions per host per UTC day: how often compaction hit each machine, and how many of
-- them a record proves (structural) or were automatic.
SELECT
    host,
    CAST(happened_at AS DATE) AS day,
    count(*) AS compactions,
    count(*) FILTER (WHERE basis = 'structural') AS structural,
    count(*) FILTER (WHERE trigger = 'auto') AS automatic,
    count(DISTINCT session) AS sessions
FROM ctxhooks_records
WHERE kind = 'compaction' AND happened_at IS NOT NULL
GROUP BY host, day
ORDER BY host, day;
