"""Validate drift scenarios (format "drift-scenario/1").

The command line (bench/validate_scenarios.py runs main): check every file,
print its errors (and with --verbose its warnings and notes), then the summary.
Each probe is classified by the drift kind it exercises and a summary table is
printed (--markdown prints it as a Markdown table for the README), with the
per-pattern coverage (probes and scenarios per tag) and the share of probed
facts never placed on the canvas (expected strings that no node held, whatever
its status, at the probe).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .rules import KINDS, KNOWN_TAGS, LONG_TURNS
from .validate import validate_file


def share(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f} %" if whole else "-"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="scenario files or folders (default: bench/scenarios)")
    ap.add_argument("--strict", action="store_true", help="treat warnings as errors")
    ap.add_argument("--markdown", action="store_true", help="print the summary as a Markdown table")
    ap.add_argument("--verbose", action="store_true", help="list warnings and per-probe kinds")
    ap.add_argument(
        "--recent", type=int, default=10, help="turns before a probe counted as recent (default 10)"
    )
    args = ap.parse_args(argv)

    # The default is bench/scenarios, next to bench/validate_scenarios.py (this package sits beside it).
    paths = [Path(p) for p in args.paths] or [Path(__file__).resolve().parents[1] / "scenarios"]
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(p.glob("*.json")))
        elif p.is_file():
            files.append(p)
        else:
            print(f"no such file or folder: {p}", file=sys.stderr)
            return 2
    if not files:
        print("no scenario files found", file=sys.stderr)
        return 2

    seen: dict[str, str] = {}
    infos = []
    n_err = n_warn = 0
    for f in files:
        rep, info = validate_file(f, seen, args)
        n_err += len(rep.errors)
        n_warn += len(rep.warnings)
        if rep.errors or ((rep.warnings or rep.notes) and args.verbose):
            print(f"{f}:")
            for e in rep.errors:
                print(f"  ERROR   {e}")
            if args.verbose:
                for w in rep.warnings:
                    print(f"  warning {w}")
                for n in rep.notes:
                    print(f"  note    {n}")
        elif rep.warnings:
            print(f"{f}: {len(rep.warnings)} warning(s) (--verbose lists them)")
        if info:
            infos.append(info)

    if args.markdown:
        print("| id | lang | drift kinds | turns | ~tokens | nodes | probes | never-placed facts |")
        print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for i in infos:
            kinds = ", ".join(i["kinds"]) or "-"
            print(
                f"| {i['id']} | {i['lang']} | {kinds} | {i['turns']} | {i['tokens']} | {i['nodes']} | {i['probes']} "
                f"| {share(i['unplaced'], i['expected'])} |"
            )
    else:
        print()
        print(
            f"{'id':<34} {'lang':<4} {'turns':>5} {'~tok':>6} {'nodes':>5} {'probes':>6} {'unplaced':>8}  kinds"
        )
        for i in infos:
            print(
                f"{i['id']!s:<34} {i['lang']!s:<4} {i['turns']:>5} {i['tokens']:>6} {i['nodes']:>5} "
                f"{i['probes']:>6} {share(i['unplaced'], i['expected']):>8}  {', '.join(i['kinds']) or '-'}"
            )
            if args.verbose:
                for j, r in enumerate(i["probe_rows"]):
                    print(
                        f"{'':<6}probe {j}: after_turn {r['after_turn']}, {r['role']}: {', '.join(r['kinds']) or 'near/plain'}"
                    )

    print()
    langs = {}
    for i in infos:
        langs[i["lang"]] = langs.get(i["lang"], 0) + 1
    total_probes = sum(i["probes"] for i in infos)
    print(
        f"files: {len(files)}  scenarios: {len(infos)}  ({', '.join(f'{k}: {v}' for k, v in sorted(langs.items(), key=str))})"
        f"  probes: {total_probes}"
    )
    cov = []
    for k in KINDS:
        s = sum(1 for i in infos if k in i["kinds"])
        pr = sum(1 for i in infos for r in i["probe_rows"] if k in r["kinds"])
        cov.append(f"{k}: {s} scenarios/{pr} probes")
    print("coverage: " + "; ".join(cov))
    tag_probes: dict[str, int] = {}
    tag_scenarios: dict[str, int] = {}
    for i in infos:
        seen_here = set()
        for r in i["probe_rows"]:
            for tag in r["tags"] or ["(untagged)"]:
                tag_probes[tag] = tag_probes.get(tag, 0) + 1
                seen_here.add(tag)
        for tag in seen_here:
            tag_scenarios[tag] = tag_scenarios.get(tag, 0) + 1
    print(
        "per-pattern coverage (tags): "
        + (
            "; ".join(f"{t}: {tag_probes[t]} probes/{tag_scenarios[t]} scenarios" for t in sorted(tag_probes))
            or "-"
        )
    )
    missing = sorted(KNOWN_TAGS - set(tag_probes))
    if missing:
        print(f"patterns with no probe: {', '.join(missing)}")
    expected = sum(i["expected"] for i in infos)
    unplaced = sum(i["unplaced"] for i in infos)
    print(
        f"probed facts never placed on the canvas: {unplaced} of {expected} ({share(unplaced, expected)}); "
        f"long conversations ({LONG_TURNS}+ turns): {sum(1 for i in infos if i['long'])}; "
        f"largest canvas: {max((i['nodes'] for i in infos), default=0)} nodes"
    )
    print(f"errors: {n_err}  warnings: {n_warn}")
    if n_err or (args.strict and n_warn):
        print("RESULT: FAIL")
        return 1
    print("RESULT: OK")
    return 0
