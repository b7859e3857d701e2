-- ctxhooks fleet: every host's export records as one view, `ctxhooks_records`.
--
-- Run first, after naming the files (a glob, or a list) in the variable `ctxhooks_exports`:
--   duckdb -c "SET VARIABLE ctxhooks_exports = 'fleet/*.jsonl'" -c ".read docs/fleet/load.sql" \
--          -c ".read docs/fleet/compactions_per_host_per_day.sql"
--
-- Every column any record kind has is named here, so a file that lacks a kind still reads (its
-- columns are NULL). Overlapping exports (shipped at least once, or `--since` runs that repeat a
-- session's summary) are deduplicated by (host, id): the copy with the latest `time` wins.
SET TimeZone = 'UTC';
CREATE OR REPLACE VIEW ctxhooks_records AS
SELECT * EXCLUDE (copy)
FROM (
    SELECT
        *,
        try_cast(time AS TIMESTAMPTZ) AS happened_at,
        row_number() OVER (PARTITION BY host, id ORDER BY time DESC NULLS LAST, filename) AS copy
    FROM read_json(
        getvariable('ctxhooks_exports'),
        format = 'newline_delimited',
        filename = true,
        columns = {
            schema: 'INTEGER', kind: 'VARCHAR', id: 'VARCHAR', host: 'VARCHAR',
            project: 'VARCHAR', session: 'VARCHAR', time: 'VARCHAR', source: 'VARCHAR',
            -- request
            transcript: 'VARCHAR', key: 'VARCHAR', request: 'BIGINT', sidechain: 'BOOLEAN',
            agent_id: 'VARCHAR', model: 'VARCHAR', version: 'VARCHAR',
            input_tokens: 'BIGINT', cache_creation_input_tokens: 'BIGINT',
            cache_read_input_tokens: 'BIGINT', output_tokens: 'BIGINT', context_tokens: 'BIGINT',
            turn_start: 'BOOLEAN', advisor: 'BOOLEAN',
            -- request (schema 3): its cost in dollars, NULL when a model in it has no price
            cost_usd: 'DOUBLE',
            -- request and session (schema 2): the advisor's own tokens by model
            advisor_usage: 'STRUCT(model VARCHAR, input_tokens BIGINT, cache_creation_input_tokens BIGINT, cache_read_input_tokens BIGINT, output_tokens BIGINT)[]',
            -- compaction
            number: 'BIGINT', basis: 'VARCHAR', confidence: 'VARCHAR', trigger: 'VARCHAR',
            pre_tokens: 'BIGINT', post_tokens: 'BIGINT', -- and duration_ms, named with tool_event
            context_before: 'BIGINT', context_after: 'BIGINT',
            next_request: 'BIGINT', trigger_tokens: 'BIGINT', snapshot: 'VARCHAR',
            -- drop
            request_before: 'BIGINT', request_after: 'BIGINT', class: 'VARCHAR',
            explains_fall: 'BOOLEAN', evidence: 'VARCHAR',
            -- session
            cwd: 'VARCHAR', first_time: 'VARCHAR', requests: 'BIGINT', main_requests: 'BIGINT',
            peak_context: 'BIGINT', trigger_derivation: 'VARCHAR', cap_tokens: 'BIGINT',
            floor_tokens: 'BIGINT', peak_to_trigger: 'DOUBLE', compactions: 'BIGINT',
            drops: 'BIGINT',
            -- session (schema 3): its cost in dollars by model
            cost: 'STRUCT(usd DOUBLE, by_model STRUCT(model VARCHAR, responses BIGINT, usd DOUBLE)[], unpriced VARCHAR[])',
            -- snapshot
            name: 'VARCHAR', size: 'BIGINT', files: 'BIGINT',
            -- tool_event
            event: 'VARCHAR', tool_use_id: 'VARCHAR', tool_name: 'VARCHAR', duration_ms: 'BIGINT',
            is_interrupt: 'BOOLEAN', interrupted: 'BOOLEAN',
            -- provenance
            verdict: 'VARCHAR', state: 'VARCHAR', mark_reason: 'VARCHAR', mark_source: 'VARCHAR'
        }
    )
)
WHERE copy = 1;
