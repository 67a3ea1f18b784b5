// Package examples holds worked examples of reading the actionspace
// dataset, kept honest by tests. It has no code of its own: queries.sql
// holds the DuckDB queries researchers run first over a crawl's
// pages.parquet and spaces.parquet, and the package's tests crawl the
// bundled corpus (its stored pages, replayed by package pipelinetest, so
// that the figures do not move with the browser) and run every query of
// that file, unchanged, through DuckDB (github.com/duckdb/duckdb-go),
// checking the shape and the
// values of each result and the column types DuckDB sees against the
// dataset card, docs/dataset.md.
package examples
