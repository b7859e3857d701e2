-- Sessions whose largest main-chain context reached 90 % of their trigger T (from each
-- session's latest summary record), closest first.
SELECT
    host,
    project,
    session,
    peak_context,
    trigger_tokens,
    round(peak_to_trigger, 4) AS peak_to_trigger,
    compactions
FROM ctxhooks_records
WHERE kind = 'session' AND peak_to_trigger >= 0.9
ORDER BY peak_to_trigger DESC, host, session;
