"""Capture that helps later: values put on hold stay off the canvas, and a later correction finds the
node it retires even when its label does not name the subject (own text, EN + ZH)."""

from __future__ import annotations

import pytest
from helpers_context import node

from canvasweb.context.capture import extract as extract_mod
from canvasweb.context.capture import matching as matching_mod
from canvasweb.context.capture.extract import capture_facts
from canvasweb.context.capture.matching import match_supersede


def _offered(text: str) -> list[str]:
    return [f.value or f.content for f in capture_facts(text=text) if not f.tentative]


# ---------------------------------------------------------------- values on hold
@pytest.mark.parametrize(
    "text",
    [
        "the venue deposit is $3,000, but it's not confirmed yet",
        "the kiln firing is on 14 May according to Bram, don't put it on the board until they confirm",
        "场地方说押金是 3000 元，画布先别动，我还要问问",
        "供应商说交期是 6月2日，我还没跟采购对过",
    ],
)
def test_a_value_put_on_hold_is_not_offered(text, monkeypatch):
    assert _offered(text) == []
    # Control: without the hold cue the same message offers its value.
    monkeypatch.setattr(extract_mod, "_HOLD_RE", extract_mod.re.compile(r"(?!x)x"))
    assert _offered(text) != []


@pytest.mark.parametrize("text", ["The venue deposit is $3,000.", "场地押金是 3000 元。"])
def test_a_settled_value_is_still_offered(text):
    assert _offered(text) != []


# ---------------------------------------------------------------- corrections find their node
def _match(text: str, contents: list[str]) -> list[str]:
    nodes = [node(f"n{i}", c) for i, c in enumerate(contents)]
    out = []
    for fact in capture_facts(text=text):
        out += [m.node.content for m in match_supersede(fact=fact, nodes=nodes)]
    return out


def test_a_correction_that_names_the_old_identifier_retires_its_node(monkeypatch):
    contents = ["Nightly backups go to vault bkp-west-07 (retention 30 days).", "Wiki lives on wiki-int-02."]
    text = "bkp-west-07 is being retired next week, so nightly backups move to bkp-north-11"
    assert _match(text, contents) == [contents[0]]
    monkeypatch.setattr(matching_mod, "_named_identifiers", lambda sentence, value: [])
    assert _match(text, contents) == []


def test_a_correction_whose_subject_is_only_in_the_sentence_finds_a_node_of_the_same_value_type(monkeypatch):
    contents = ["Firmware on the kiosks: 4.2.7", "Kiosk count: 18 in the lobby."]
    text = "scratch that, we flashed 4.2.9 on the kiosks this morning"
    assert contents[0] in _match(text, contents)
    monkeypatch.setattr(matching_mod, "subject_terms", _no_sentence_terms(matching_mod.subject_terms))
    assert contents[0] not in _match(text, contents)


def _no_sentence_terms(real):
    """subject_terms that sees nothing in a whole correction sentence (only in labels and nodes)."""

    def fake(text: str):
        return frozenset() if "flashed" in text else real(text)

    return fake


def test_a_subject_less_correction_picks_the_number_of_the_same_shape_whose_subject_it_names():
    contents = ["The staging broker listens on port 7061.", "Gate code for the yard: 4410."]
    text = "hmm actually they moved us to 7063, some port clash on their side"
    assert _match(text, contents) == [contents[0]]


def test_a_subject_less_correction_with_no_named_subject_guesses_nothing():
    contents = ["The staging broker listens on port 7061.", "Gate code for the yard: 4410."]
    assert _match("oh wait, actually it's 7063", contents) == []


def test_a_correction_that_names_the_old_value_picks_that_node_over_a_look_alike(monkeypatch):
    contents = ["门禁系统端口 8080，未改默认", "仓库系统端口：7443"]  # the look-alike comes first by id
    text = "对方说 7443 那个端口跟防火墙冲突，端口换成 7445"
    assert _match(text, contents)[0] == contents[1]


# ---------------------------------------------------------------- sensitivity of a restated node
def test_a_fact_that_restates_an_internal_node_is_internal():
    from canvasweb.context.capture import restated_sensitivity

    nodes = [
        node(
            "deal",
            "Internal: the Korvath retainer drops to 4 hours a week from 1 May (board decision).",
            sensitivity="internal",
        ),
        node("pub", "Design reviews happen on Thursdays."),
    ]
    said = "heads up, the board decided the Korvath retainer drops to 4 hours a week from 1 May"
    assert restated_sensitivity(said, nodes) == "internal"
    assert restated_sensitivity("design reviews moved to Fridays", nodes) == "public"
    public_only = [n for n in nodes if n.sensitivity == "public"]
    assert restated_sensitivity(said, public_only) == "public"


def test_on_hold_cues_in_both_languages():
    from canvasweb.context.capture import on_hold

    assert on_hold("keep it off the board for now, it's not final")
    assert on_hold("价格还没确认，画布上先别动")
    assert not on_hold("The ferry leaves at 07:40, add it to the board.")
    assert not on_hold("押金已经付了 3000 元。")
