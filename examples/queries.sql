-- The questions researchers ask first of an actionspace crawl, in DuckDB SQL.
--
-- Run the file from a crawl's dataset directory (`crawl --out DIR`; by
-- default results/runs/<run-id>), the one holding pages/ and spaces/ with
-- their part files:
--
--   cd results/runs/<run-id> && duckdb < ../../../examples/queries.sql
--
-- or, in the DuckDB CLI started in that directory,
-- `.read ../../../examples/queries.sql`. The first block creates a view per
-- table (`pages`, `spaces`, `elements`, `oracle`) over every part of it;
-- every other query reads only those views. From Python or a notebook, run the first block
-- with absolute paths, then any query as is.
--
-- Each query starts with a `-- name: <slug>` line and a one-line
-- description. examples/queries_test.go crawls the bundled corpus and runs
-- every block of this file, unchanged, through DuckDB; a block it does not
-- check fails the test. Tokens are cl100k_base unless a column says o200k.
-- See docs/dataset.md for what every column means.

-- name: views
-- The tables as views over all their part files, relative to the current directory.
CREATE OR REPLACE VIEW pages AS SELECT * FROM read_parquet('pages/**/*.parquet');
CREATE OR REPLACE VIEW spaces AS SELECT * FROM read_parquet('spaces/**/*.parquet');
CREATE OR REPLACE VIEW elements AS SELECT * FROM read_parquet('elements/**/*.parquet');
CREATE OR REPLACE VIEW oracle AS SELECT * FROM read_parquet('oracle/**/*.parquet');

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
WHERE s.format = 'actionspace'
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
WHERE format = 'actionspace'
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
WHERE format = 'actionspace' AND ratio_cl100k > 0
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
WHERE format = 'actionspace'
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

-- name: formats-side-by-side
-- Every format at every window: median tokens and handles, median recall against the oracle, and the oracle elements in the windows, those handled and the extra handles (actionspace in fast mode; html has no handles and no recall).
SELECT
    format,
    viewport_expansion,
    count(*)                                      AS pages,
    median(tokens_cl100k)                         AS median_tokens,
    median(action_count)                          AS median_handles,
    round(median(recall), 3)                      AS median_recall,
    sum(oracle_in_window)::BIGINT                 AS oracle_elements,
    sum(round(recall * oracle_in_window))::BIGINT AS handled,
    sum(extra_handles)::BIGINT                    AS extra_handles
FROM spaces
WHERE mode IN ('fast', '')
GROUP BY format, viewport_expansion
ORDER BY format, viewport_expansion = -1, viewport_expansion;

-- name: elements-match-action-count
-- Any window's IDs from the elements table: within outside_px, neither occluded nor nested, no label whose control has an ID, only a modal's when one has an ID; per page at E=500, beside the spaces row.
WITH e AS (
    SELECT * FROM elements
    WHERE outside_px <= 500 AND NOT occluded AND NOT nested
),
labels_kept AS (
    SELECT e.* FROM e
    WHERE e.label_for IS NULL OR NOT EXISTS (
        SELECT 1 FROM e c
        WHERE c.run_id = e.run_id AND c.page_id = e.page_id AND c.element = e.label_for)
),
modal AS (
    SELECT *, bool_or(in_modal) OVER (PARTITION BY run_id, page_id) AS page_modal FROM labels_kept
),
ids AS (
    SELECT run_id, page_id, count(*) FILTER (WHERE in_modal OR NOT page_modal) AS ids
    FROM modal
    GROUP BY run_id, page_id
)
SELECT
    p.url,
    coalesce(ids.ids, 0)                  AS element_ids,
    s.action_count,
    coalesce(ids.ids, 0) = s.action_count AS equal
FROM spaces s
JOIN pages p USING (run_id, page_id)
LEFT JOIN ids USING (run_id, page_id)
WHERE s.format = 'actionspace' AND s.mode = 'fast' AND s.viewport_expansion = 500
ORDER BY equal, p.url;

-- name: recall-misses-by-reason
-- Oracle elements the fast action space of the whole page gave no handle, by reason, with an example; those outside the whole-page window are counted apart (they are not in its recall).
SELECT
    miss_reason,
    count(*) FILTER (WHERE in_whole_page)     AS misses,
    count(*) FILTER (WHERE NOT in_whole_page) AS outside_whole_page,
    count(DISTINCT page_id)                   AS pages,
    min(role || ' "' || name || '"')          AS example
FROM oracle
WHERE miss_reason IS NOT NULL
GROUP BY miss_reason
ORDER BY misses DESC, miss_reason;

-- name: extra-handles-by-reason
-- IDs of the whole page that stand for no oracle element, by why our rules found the element interactive (its strongest signal), with an example.
SELECT
    extra_reason,
    count(*)                                              AS extra_handles,
    count(DISTINCT page_id)                               AS pages,
    min(whole_page_id || ' <' || tag || '> "' || name || '"') AS example
FROM elements
WHERE whole_page_id IS NOT NULL AND extra_reason IS NOT NULL
GROUP BY extra_reason
ORDER BY extra_handles DESC, extra_reason;

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

-- name: table-bytes
-- The compressed bytes a scan of each table reads, and of the blobs columns html and capture, which the pages table held before schema version 2.
SELECT
    regexp_extract(file_name, '(pages|spaces|blobs|elements|oracle)/', 1) AS table_name,
    sum(total_compressed_size)::BIGINT AS bytes,
    (sum(total_compressed_size) FILTER (WHERE path_in_schema IN ('html', 'capture')))::BIGINT AS html_capture_bytes
FROM parquet_metadata(['pages/**/*.parquet', 'spaces/**/*.parquet', 'blobs/**/*.parquet', 'elements/**/*.parquet', 'oracle/**/*.parquet'])
GROUP BY table_name
ORDER BY table_name;
