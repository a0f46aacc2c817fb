"""Context-compiler tests are pure Python: no Django settings, no database.

Make the repository root and this folder importable however pytest is invoked
(the project may not have a pytest.ini with `pythonpath = .` yet).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)
