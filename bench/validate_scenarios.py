#!/usr/bin/env python3
"""Validate drift scenarios (format "drift-scenario/1").

Plain Python 3, no third-party packages. Usage:

    python bench/validate_scenarios.py [PATH ...] [--strict] [--markdown] [--verbose]

PATH is a scenario file or a folder (every *.json in it is checked); the
default is bench/scenarios next to this script. The exit status is 1 when any
error is found (with --strict, also when any warning is found).

The checks live in the package bench/scenario_validator/ (validate.py lists them);
this file is the entry point the docs and tests run.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, bench/ is already on sys.path; loaded by file path (tests), it is not.
_BENCH = str(Path(__file__).resolve().parent)
if _BENCH not in sys.path:
    sys.path.insert(0, _BENCH)

from scenario_validator.cli import main  # noqa: E402 (after the sys.path line above)

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
