"""The drift kind a probe exercises: which selection mechanism (pin, distance, link, question match) reaches
an expected string, or none (the fact was never placed on the canvas)."""

from __future__ import annotations

import math

from .replay import Canvas
from .rules import FAR, NEAR
from .text import contains, keywords


def distance(node: dict, viewport: dict) -> float:
    return math.hypot(node["x"] - viewport["x"], node["y"] - viewport["y"])


def classify_expected(canvas: Canvas, s: str, role: str, viewport: dict, question: str):
    """Return (kind, note) for one expected string; kind None means 'no mechanism'."""
    holders = [k for k, n in canvas.nodes.items() if canvas.visible(k, role) and contains(n["content"], s)]
    if not holders:
        return "uncaptured", None
    qk = keywords(question)
    best = None
    rank = {"near": 0, "far-anchor": 1, "anchor": 1, "linked": 2, "question-match": 3, "distance": 4}
    for k in holders:
        n = canvas.nodes[k]
        d = distance(n, viewport)
        eff = d / n["weight"]
        if n["pinned"]:
            kind = "far-anchor" if d >= FAR else "anchor"
        elif eff <= NEAR:
            kind = "near"
        else:
            kind = None
            for a, b, _ in canvas.edges:
                other = b if a == k else a if b == k else None
                if other is None or not canvas.visible(other, role):
                    continue
                o = canvas.nodes[other]
                if o["pinned"] or distance(o, viewport) / o["weight"] <= NEAR:
                    kind = "linked" if d >= FAR else "distance"
                    break
            if kind is None and (keywords(n["content"]) & qk):
                kind = "question-match" if d >= FAR else "distance"
            if kind is None and d < FAR:
                kind = "distance"
        if kind is not None and (best is None or rank[kind] < rank[best]):
            best = kind
    return best, holders
