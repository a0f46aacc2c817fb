"""Benchmarks: drift resistance (drift_bench), compile speed (bench_compile), real-time fan-out (bench_sync).

Plain modules with the logic, thin management commands in management/commands.
See docs/benchmarks.md.
"""
