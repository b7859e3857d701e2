-- Tool calls that did not complete normally, per host, by who cut them off (verdict) and
-- whether they ran (state).
SELECT
    host,
    verdict,
    state,
    count(*) AS calls
FROM ctxhooks_records
WHERE kind = 'provenance'
GROUP BY host, verdict, state
ORDER BY host, verdict, state;
