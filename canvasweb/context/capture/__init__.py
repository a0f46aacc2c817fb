"""Suggest canvas facts from a user message (the UI offers them; nothing is written here).

* `extract`: the deterministic extractor (statements, decisions, corrections; EN and ZH), its
  regular expressions in `patterns`;
* `values`: typed values (dates, money, durations, ports, …) and Chinese numerals;
* `matching`: which live node a new fact retires (a value conflict on the same subject);
* `conflicts`: a statement that breaks a canvas constraint (date range, cap, forbidden weekday);
* `sensitivity`: who may see a fact, from what the user said about it.
"""

from .conflicts import Conflict, conflict_note, find_conflicts
from .extract import SuggestedFact, capture_facts, on_hold, statement, with_label
from .matching import Match, find_superseded_candidates, match_supersede, subject_terms
from .sensitivity import more_sensitive, restated_sensitivity, sensitivity_marked, stricter
from .values import find_values, same_value, value_key, value_type

__all__ = [
    "Conflict",
    "Match",
    "SuggestedFact",
    "capture_facts",
    "conflict_note",
    "find_conflicts",
    "find_superseded_candidates",
    "find_values",
    "match_supersede",
    "more_sensitive",
    "on_hold",
    "restated_sensitivity",
    "same_value",
    "sensitivity_marked",
    "statement",
    "stricter",
    "subject_terms",
    "value_key",
    "value_type",
    "with_label",
]
