"""The parts of bench_sync (canvasweb/bench/sync_bench.py): clients, phases, the stack, the report."""
