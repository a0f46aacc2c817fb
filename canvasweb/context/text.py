"""Keyword extraction (English + Chinese) and Markdown/HTML flattening.

Keywords: lowercase word tokens with stopwords removed and a light suffix
stemmer (so "expires" meets "expire", "caching" meets "cache"), plus CJK
character bigrams (a single CJK character on its own becomes a unigram).
Chinese has no spaces, and bigrams are the standard cheap stand-in for a
word segmenter: "数据库端口" -> 数据, 据库, 库端, 端口.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Mapping

# CJK unified ideographs (+ extension A and compatibility ideographs).
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just let lets
    me more most my myself no nor of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves s t d ll m re ve y ok okay please thanks thank sure also
    use used using should shall may might must does did what's it's let's i'm we're you're""".split()
)
# Function characters that make poor CJK keywords on their own or inside a
# bigram (的, 了, 是, 我们 …). Negations like 不 are kept: they carry meaning.
CJK_STOP_CHARS = frozenset("的了是吗呢吧啊呀么在和与及或也都就还又把被让给这那我你他她它们个之其此")

_SUFFIXES = ("ies", "ing", "ed", "es", "s", "e")
_UNDOUBLE = frozenset("bdgmnprt")


def _irregular_forms() -> dict[str, str]:
    """Words the suffix stripper would split from their own family ("morning" -> "morn" but
    "mornings" -> "morning"; "Sunday" never meeting "Sun"): each maps to one form."""
    out: dict[str, str] = {}
    for full, short, extra in (
        ("monday", "mon", ()),
        ("tuesday", "tue", ("tues",)),
        ("wednesday", "wed", ()),
        ("thursday", "thu", ("thur", "thurs")),
        ("friday", "fri", ()),
        ("saturday", "sat", ()),
        ("sunday", "sun", ()),
    ):
        for w in (full, full + "s", *extra):
            out[w] = short
    for base, forms in (
        ("wedding", ("wedding", "weddings")),  # not "wed", which is Wednesday
        ("morning", ("morning", "mornings")),
        ("evening", ("evening", "evenings")),
        ("night", ("nightly", "nights", "overnight")),
        ("day", ("daily",)),
        ("week", ("weekly",)),
        ("month", ("monthly",)),
        ("year", ("yearly", "annual", "annually")),
        ("hour", ("hourly",)),
        ("depart", ("departure", "departures", "departing", "departs", "departed")),
        ("arriv", ("arrival", "arrivals")),
        ("deliver", ("delivery", "deliveries")),
    ):
        for w in forms:
            out[w] = base
    return out


_IRREGULAR = _irregular_forms()


def stem(word: str) -> str:
    """Tiny suffix stripper; consistent rather than linguistically correct."""
    if len(word) <= 3 or not word.isalpha():
        return word
    irregular = _IRREGULAR.get(word)
    if irregular is not None:
        return irregular
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suf in _SUFFIXES[1:]:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            if suf == "s" and word.endswith("ss"):
                return word
            base = word[: -len(suf)]
            if suf in ("ing", "ed") and len(base) >= 4 and base[-1] == base[-2] and base[-1] in _UNDOUBLE:
                base = base[:-1]  # stopped / stopping -> stop, like "stops" (not "call", "pass")
            return base
    return word


def _cjk_terms(run: str, out: set[str]) -> None:
    if len(run) == 1:
        if run not in CJK_STOP_CHARS:
            out.add(run)
        return
    for i in range(len(run) - 1):
        a, b = run[i], run[i + 1]
        if a in CJK_STOP_CHARS or b in CJK_STOP_CHARS:
            continue
        out.add(a + b)


def extract_terms(text: str) -> frozenset[str]:
    """Keyword set of a text, for question matching and similarity."""
    out: set[str] = set()
    if not text:
        return frozenset()
    for m in _TOKEN_RE.finditer(text):
        tok = m.group(0)
        c = tok[0]
        if "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff":
            _cjk_terms(tok, out)
            continue
        tok = tok.lower().replace("’", "'")
        if tok in STOPWORDS:
            continue
        if "'" in tok:
            tok = tok.split("'", 1)[0]
            if not tok or tok in STOPWORDS:
                continue
        out.add(stem(tok))
    return frozenset(out)


def match_score(
    question_terms: Iterable[str], node_terms: Iterable[str], *, weights: Mapping[str, float] | None = None
) -> float:
    """Share of the question's keywords (optionally idf-weighted) found in the node. 0..1."""
    q = set(question_terms)
    if not q:
        return 0.0
    n = node_terms if isinstance(node_terms, (set, frozenset)) else set(node_terms)
    if weights is None:
        return len(q & n) / len(q)
    total = sum(weights.get(t, 1.0) for t in q)
    if total <= 0:
        return 0.0
    return sum(weights.get(t, 1.0) for t in q if t in n) / total


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


@functools.lru_cache(maxsize=65_536)
def normalize_sentence(sentence: str) -> str:
    """Lowercased, whitespace-squashed, end punctuation stripped: for "same sentence" checks."""
    return re.sub(r"\s+", " ", sentence.lower()).strip(" .。!！?？;；,，")


_SPLIT_RE = re.compile(r"(?<=[。！？；])|(?<=[.!?])\s+(?=\S)|\n+")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences of English or Chinese text (Chinese splits after 。！？；, lines split too)."""
    out = []
    for part in _SPLIT_RE.split(text or ""):
        if not part:
            continue
        s = _BULLET_RE.sub("", part).strip()
        if s:
            out.append(s)
    return out


_DELIMITER_RE = re.compile(
    r"<(?=\s*/?\s*(?:canvas_data|conversation_summary|recalled_messages)\b)", re.IGNORECASE
)


def escape_delimiters(text: str) -> str:
    """Defuse our data-block tags inside untrusted text ("<" -> "\\u003c")."""
    if "<" not in text:
        return text
    return _DELIMITER_RE.sub(r"\\u003c", text)


# ---------------------------------------------------------------- flattening

_FENCE_RE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.M | re.S)
_HTML_IMG_RE = re.compile(r"<img\b[^>]*?\balt\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)[^>]*>", re.I)
_HTML_IMG_NOALT_RE = re.compile(r"<img\b[^>]*>", re.I)
_HTML_CELL_SEP_RE = re.compile(r"</t[dh]>\s*<t[dh]\b[^>]*>", re.I)
_HTML_BREAK_RE = re.compile(r"<(?:br|/p|/div|/tr|/li|/h[1-6]|/table|/ul|/ol)\b[^>]*>", re.I)
_HTML_LI_RE = re.compile(r"<li\b[^>]*>", re.I)
_HTML_DROP_RE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.I | re.S)
_HTML_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*\b[^<>]*>|<!--.*?-->", re.S)
_MD_IMG_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_MD_TABLE_SEP_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_MD_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+", re.M)
_MD_EMPH_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_INLINE_CODE_RE = re.compile(r"`([^`\n]+)`")
_MD_QUOTE_RE = re.compile(r"^\s{0,3}>\s?", re.M)
_BLANKS_RE = re.compile(r"\n{3,}")


def _flatten_prose(text: str) -> str:
    text = _HTML_DROP_RE.sub("", text)
    text = _HTML_IMG_RE.sub(lambda m: m.group(1).strip("\"'"), text)
    text = _HTML_IMG_NOALT_RE.sub("", text)
    text = _HTML_CELL_SEP_RE.sub(" | ", text)
    text = _HTML_LI_RE.sub("- ", text)
    text = _HTML_BREAK_RE.sub("\n", text)
    text = _HTML_TAG_RE.sub("", text)
    text = html.unescape(text)
    text = _MD_IMG_RE.sub(lambda m: m.group(1), text)
    text = _MD_LINK_RE.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)
    lines = []
    for line in text.split("\n"):
        if _MD_TABLE_SEP_RE.match(line) and "-" in line:
            continue  # |---|---| separator rows carry no content
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
            cells = [c.strip() for c in stripped[1:-1].split("|")]
            line = " | ".join(cells)
        lines.append(line.rstrip())
    text = "\n".join(lines)
    text = _MD_HEADING_RE.sub("", text)
    text = _MD_QUOTE_RE.sub("", text)
    text = _MD_EMPH_RE.sub(lambda m: m.group(2), text)
    text = _MD_INLINE_CODE_RE.sub(lambda m: m.group(1), text)
    return text


_MARKUP_HINT_RE = re.compile(r"[<>\[\]|#*_`&~]|\n\s*\n\s*\n")


def flatten_markup(text: str) -> str:
    """Markdown/HTML to plain text for rendering; fenced code is kept verbatim."""
    if not text:
        return ""
    if not _MARKUP_HINT_RE.search(text):
        return text.strip()  # plain prose: nothing to flatten
    parts: list[str] = []
    pos = 0
    for m in _FENCE_RE.finditer(text):
        parts.append(_flatten_prose(text[pos : m.start()]))
        parts.append(m.group(0))
        pos = m.end()
    parts.append(_flatten_prose(text[pos:]))
    out = "".join(parts)
    return _BLANKS_RE.sub("\n\n", out).strip()
