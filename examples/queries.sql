-- The questions researchers ask first of an actionspace crawl, in DuckDB SQL.
--
-- Run the file from a crawl's dataset directory (`crawl --out DIR`; by
-- default results/runs/<run-id>), the one holding pages/ and spaces/ with
-- their part files:
--
--   cd results/runs/<run-id> && duckdb < ../../../examples/queries.sql
--
-- or, in the DuckDB CLI started in that directory,
-- `.read ../../../examples/queries.sql`. The first block creates two views,
-- `pages` and `spaces`, over every part of each table; every other query
-- reads only those views. From Python or a notebook, run the first block
-- with absolute paths, then any query as is.
--
-- Each query starts with a `-- name: <slug>` line and a one-line
-- description. examples/queries_test.go crawls the bundled corpus and runs
-- every block of this file, unchanged, through DuckDB; a block it does not
-- check fails the test. Tokens are cl100k_base unless a column says o200k.
-- See docs/dataset.md for what every column means.

-- name: views
-- The two tables as views over all their part files, relative to the current directory.
CREATE OR REPLACE VIEW pages AS SELECT * FROM read_parquet('pages/**/*.parquet');
CREATE OR REPLACE VIEW spaces AS SELECT * FROM read_parquet('spaces/**/*.parquet');

-- name: tokens-per-page
-- Action-space tokens per page by mode, viewport expansion and text policy (median, p90), next to the raw HTML's.
SELECT
    s.mode,
    s.viewport_expansion,
    s.text_policy,
    count(*)                                      AS pages,
    median(s.tokens_cl100k)                       AS median_tokens,
    round(quantile_cont(s.tokens_cl100k, 0.9), 1) AS p90_tokens,
    median(s.tokens_o200k)                        AS median_tokens_o200k,
    round(quantile_cont(s.tokens_o200k, 0.9), 1)  AS p90_tokens_o200k,
    median(p.html_tokens_cl100k)                  AS median_html_tokens
FROM spaces s
JOIN pages p USING (run_id, page_id)
GROUP BY s.mode, s.viewport_expansion, s.text_policy
ORDER BY s.mode, s.viewport_expansion = -1, s.viewport_expansion, s.text_policy;

-- name: ratio-distribution
-- Compression ratio (raw-HTML tokens / action-space tokens, per encoding) by mode and expansion: min, quartiles, max.
SELECT
    mode,
    viewport_expansion,
    text_policy,
    count(ratio_cl100k)                         AS pages,
    round(min(ratio_cl100k), 1)                 AS min_cl100k,
    round(quantile_cont(ratio_cl100k, 0.25), 1) AS p25_cl100k,
    round(median(ratio_cl100k), 1)              AS median_cl100k,
    round(quantile_cont(ratio_cl100k, 0.75), 1) AS p75_cl100k,
    round(max(ratio_cl100k), 1)                 AS max_cl100k,
    round(median(ratio_o200k), 1)               AS median_o200k
FROM spaces
GROUP BY mode, viewport_expansion, text_policy
ORDER BY mode, viewport_expansion = -1, viewport_expansion, text_policy;

-- name: ratio-histogram
-- The cl100k_base ratio as a histogram with power-of-two buckets ([1, 2), [2, 4), ...) per mode and expansion.
SELECT
    mode,
    viewport_expansion,
    text_policy,
    pow(2, floor(log2(ratio_cl100k))) AS ratio_from,
    2 * ratio_from                    AS ratio_to,
    count(*)                          AS pages
FROM spaces
WHERE ratio_cl100k > 0
GROUP BY mode, viewport_expansion, text_policy, ratio_from
ORDER BY mode, viewport_expansion = -1, viewport_expansion, text_policy, ratio_from;

-- name: most-expensive-pages
-- The 20 pages whose fast-mode action space costs the most tokens, at the widest window rendered (-1, the whole page, when present).
SELECT
    p.url,
    s.viewport_expansion,
    s.text_policy,
    s.action_count,
    s.tokens_cl100k,
    p.html_tokens_cl100k,
    round(s.ratio_cl100k, 1) AS ratio_cl100k
FROM spaces s
JOIN pages p USING (run_id, page_id)
WHERE s.mode = 'fast'
QUALIFY row_number() OVER (
    PARTITION BY s.run_id, s.page_id, s.text_policy
    ORDER BY s.viewport_expansion = -1 DESC, s.viewport_expansion DESC) = 1
ORDER BY s.tokens_cl100k DESC NULLS LAST, p.url
LIMIT 20;

-- name: ids-per-letter
-- IDs per letter (L link, B button-like, I input, F image, O option, M other) by mode and expansion: totals and mean per page.
SELECT
    mode,
    viewport_expansion,
    text_policy,
    count(*)                        AS pages,
    sum(ids_L)::BIGINT              AS L,
    sum(ids_B)::BIGINT              AS B,
    sum(ids_I)::BIGINT              AS I,
    sum(ids_F)::BIGINT              AS F,
    sum(ids_O)::BIGINT              AS O,
    sum(ids_M)::BIGINT              AS M,
    sum(action_count)::BIGINT       AS ids,
    round(avg(action_count), 1)     AS ids_per_page
FROM spaces
GROUP BY mode, viewport_expansion, text_policy
ORDER BY mode, viewport_expansion = -1, viewport_expansion, text_policy;

-- name: actions-by-role
-- The structured actions list, unnested: actions per role and kind at each expansion (fast mode).
SELECT
    viewport_expansion,
    a.role                  AS role,
    a.kind                  AS kind,
    count(*)                AS actions,
    count(DISTINCT page_id) AS pages
FROM (SELECT page_id, viewport_expansion, unnest(actions) AS a FROM spaces WHERE mode = 'fast')
GROUP BY viewport_expansion, a.role, a.kind
ORDER BY viewport_expansion = -1, viewport_expansion, actions DESC, a.role, a.kind;

-- name: error-kinds
-- Failed pages by error kind and HTTP status, with an example URL and message of each.
SELECT
    error_kind,
    http_status,
    count(*)           AS pages,
    min(url)           AS example_url,
    min(error_message) AS example_message
FROM pages
WHERE status = 'error'
GROUP BY ALL
ORDER BY pages DESC, error_kind, http_status;

-- name: crawl-summary
-- Per run: pages, ok and failed, spaces rows, capture times (UTC) and the median stage timings of the captured pages.
WITH s AS (SELECT run_id, count(*) AS spaces_rows FROM spaces GROUP BY run_id)
SELECT
    p.run_id,
    count(*)                                                 AS pages,
    count(*) FILTER (WHERE p.status = 'ok')                  AS ok,
    count(*) FILTER (WHERE p.status = 'error')               AS failed,
    coalesce(any_value(s.spaces_rows), 0)                    AS spaces_rows,
    min(p.captured_at)                                       AS first_captured_at,
    max(p.captured_at)                                       AS last_captured_at,
    round(median(p.navigate_ms) FILTER (WHERE p.status = 'ok'), 1) AS median_navigate_ms,
    round(median(p.capture_ms) FILTER (WHERE p.status = 'ok'), 1)  AS median_capture_ms,
    round(median(p.total_ms) FILTER (WHERE p.status = 'ok'), 1)    AS median_total_ms
FROM pages p
LEFT JOIN s USING (run_id)
GROUP BY p.run_id
ORDER BY p.run_id;

-- name: deep-mode-per-page
-- Deep mode per page and window: LLM calls, rounds, tokens (API-reported and local), latency, coverage, next to fast-mode tokens; no rows without deep mode.
SELECT
    d.url,
    d.viewport_expansion,
    d.text_policy,
    d.llm_model,
    d.llm_ran,
    d.llm_calls,
    d.llm_rounds,
    d.cache_hits,
    d.prompt_tokens_api,
    d.completion_tokens_api,
    d.prompt_tokens_api + d.completion_tokens_api AS api_tokens,
    d.prompt_tokens_local,
    round(d.llm_ms, 1)                            AS llm_ms,
    round(d.coverage, 3)                          AS coverage,
    d.hallucinated_ids,
    d.tokens_cl100k                               AS deep_tokens,
    f.tokens_cl100k                               AS fast_tokens
FROM spaces d
LEFT JOIN spaces f
    ON f.run_id = d.run_id AND f.page_id = d.page_id AND f.mode = 'fast'
    AND f.viewport_expansion = d.viewport_expansion AND f.text_policy = d.text_policy
WHERE d.mode = 'deep'
ORDER BY d.prompt_tokens_local DESC NULLS LAST, d.url, d.viewport_expansion;

-- name: deep-mode-summary
-- Deep mode over the whole crawl: one row with totals and per-row means; 0 rows counted and null figures without deep mode.
SELECT
    count(*)                                 AS deep_rows,
    count(*) FILTER (WHERE llm_ran)          AS llm_ran_rows,
    sum(llm_calls)::BIGINT                   AS llm_calls,
    sum(cache_hits)::BIGINT                  AS cache_hits,
    sum(prompt_tokens_api)::BIGINT           AS prompt_tokens_api,
    sum(completion_tokens_api)::BIGINT       AS completion_tokens_api,
    sum(prompt_tokens_local)::BIGINT         AS prompt_tokens_local,
    round(avg(prompt_tokens_local), 1)       AS prompt_tokens_local_per_row,
    round(median(llm_ms), 1)                 AS median_llm_ms,
    round(avg(coverage), 3)                  AS mean_coverage,
    sum(hallucinated_ids)::BIGINT            AS hallucinated_ids
FROM spaces
WHERE mode = 'deep';

-- name: file-metadata
-- The files' key-value metadata: schema version, tool and browser versions, run ID, configuration (JSON), creation times over the parts.
WITH kv AS (
    SELECT decode(key) AS key, decode(value) AS value, file_name
    FROM parquet_kv_metadata(['pages/**/*.parquet', 'spaces/**/*.parquet'])
)
SELECT
    key,
    CASE WHEN count(DISTINCT value) = 1 THEN min(value)
         ELSE arg_min(value, try_cast(value AS TIMESTAMPTZ)) || ' .. '
           || arg_max(value, try_cast(value AS TIMESTAMPTZ)) END AS value,
    count(*) AS files
FROM kv
GROUP BY key, CASE WHEN key = 'actionspace.created_at' THEN '' ELSE value END
ORDER BY key, value;
