"""Reliability tooling: `manage.py soak` runs tests/reliability at full scale and writes a report."""
