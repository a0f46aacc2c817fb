"""Only the benchmarks plot: matplotlib is an optional `bench` extra that the set-up script installs."""

from __future__ import annotations

import pathlib
import tomllib

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_matplotlib_is_a_bench_extra_not_a_runtime_dependency():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(dep.lower().startswith("matplotlib") for dep in project["dependencies"])
    assert any(dep.startswith("matplotlib==") for dep in project["optional-dependencies"]["bench"])
    assert '-e ".[test,bench,lint]"' in (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")


def test_the_server_never_imports_matplotlib_at_module_level():
    for path in (REPO / "canvasweb").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(("import matplotlib", "from matplotlib")):
                raise AssertionError(f"{path}: {line}")
