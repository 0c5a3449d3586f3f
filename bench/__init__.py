"""Benchmarks: time to first audio, payload sizes and concurrency on the real Kokoro server.

Scripts print tables and write `bench/results/<name>.json` and `<name>.png`; they are never
timed assertions. `python -m bench.report` turns the JSON into the tables of
docs/performance.md.
"""
