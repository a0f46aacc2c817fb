"""Named values in chat text: a person, a place, a vendor that a correction names as old or new.

A name is no typed value (values.py reads numbers, dates, money), so it is read only where a
correction frames it, which keeps ordinary capitalised words out of the ledger:

* English: a capitalised name ("Ines Duarte", "Dr Moreau", "the Wool Hall") right after
  "no longer", "instead of", "replacing", "from … to", or before "takes over", "now",
  "instead"; one followed by "is out", "double-booked", "fell through" is old only when the
  same message names a new one;
* Chinese: the words after 改为/换成/换到/改由/以…为准 (new), after 不再是 or between 从 and
  换成 (old), between 由 and 负责 (assigned: new only in a sentence with a correction cue).

`corrected_names` reads one message; `name_occurrences` finds the names so read anywhere in
the history (the earlier "Halvorsen gives the keynote" the correction retires). value_mentions/
turns both into mentions; the ledger decides what is retired.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .capture.values import arabic_numerals, find_values


@dataclass(frozen=True, slots=True)
class NameSpan:
    start: int
    end: int
    raw: str  # as written, with its title ("Prof. Halvorsen", "The Larches")
    key: str  # "name=okafor": titles and case left out
    # "old" | "new" | "assigned" | "gone" (old if replaced) | "found" (new beside a gone one) | ""
    # (said elsewhere, plainly)
    role: str
    sentence_start: int = 0  # where its sentence starts (a cue is looked for there)
    sentence_end: int = 0


_TITLE = r"(?:The|Dr\.?|Prof\.?|Professor|Mr\.?|Mrs\.?|Ms\.?|Mx\.?|DJ|Sir|Dame)"
_WORD = r"[A-Z][A-Za-z\u00c0-\u024f'’&-]*"
_CONNECT = r"(?:of|de|da|di|du|van|von|der|den|la|le|del)"
_NAME_RE = re.compile(rf"(?<![A-Za-z0-9_'’-])(?:{_TITLE}\s+)?{_WORD}(?:\s+(?:{_CONNECT}\s+)?{_WORD})*")
_TITLE_RE = re.compile(rf"^{_TITLE}\s+")
# Capitalised words that are no name: pronouns, chat words, days and months (values.py reads dates).
_NOT_NAMES = frozenset(
    """i i'm i'll i've i'd it it's its we we're we'll we've they they're he he's she she's you you're
    this that these those there here the a an and but or so then also yes no ok okay actually update
    sorry thanks thank please hi hello hey correction note scratch wait well now new old just our my
    their his her monday tuesday wednesday thursday friday saturday sunday january february march
    april june july august september october november december mon tue wed thu fri sat sun""".split()
)
# A sentence ends at 。！？!? or a full stop, not the one of a title ("Prof. Halvorsen").
_SENTENCE_RE = re.compile(
    r"(?:[^。！？!?\n.]|\.(?!\s|$)|(?<=\bDr)\.|(?<=\bProf)\.|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bSt)\.)+(?:[。！？!?\n.]|$)"
)
# A sentence that asks or advises reports no change.
_HEDGE_RE = re.compile(
    r"[?？]|\b(?:if|could|should|might|maybe|perhaps|would|how about|what about|suggest)\b|要不|是否|吗|或者|如果|建议",
    re.IGNORECASE,
)

# Text right before a name that names it as the old one.
_OLD_BEFORE_RE = re.compile(
    r"\b(?:no longer|not|instead of|rather than|replacing|in place of|over from|"
    r"vetoed|rejected|ditched|scrapped|dropped|lost|scrap|ditch|cancell?ed|cancel|so no|no more)\s+"
    r"(?:(?:be|is|with|using|at|in|by)\s+)?(?:the\s+)?$",
    re.IGNORECASE,
)
_FROM_RE = re.compile(r"\bfrom\s+(?:the\s+)?$", re.IGNORECASE)
_TO_AFTER_RE = re.compile(r"^\s+to\s+(?:the\s+)?(?=[A-Z])")
# Text right after a name that says it fell through; old only beside a new name.
_GONE_AFTER_RE = re.compile(
    r"^\s*(?:is|was|'s|has|have|had|got|are|were)?\s*(?:been\s+|now\s+)?(?:out\b|off\b|unavailable|cancell?ed|"
    r"fully booked|booked up|double-booked|overbooked|over-booked|can'?t (?:take|host|fit|have) us|closed|a mess|gone\b|dropped out|pulled out|backed out|fell through|"
    r"can'?t make it|cannot make it|couldn'?t make it|can'?t do (?:it|the \w+|this|that)|no longer|left\b|quit\b|resigned|retired|is leaving|"
    r"went bust|(?:got|was|has been|have been) (?:vetoed|rejected|scrapped))",
    re.IGNORECASE,
)
# A firm that closed is the old one whether or not the message names the next ("PrintSmith have shut").
_STRONG_AFTER_RE = re.compile(
    r"^\s*(?:(?:is|was|'s)?\s*no longer\b|(?:has|have|had)\s+(?:now\s+)?(?:shut|closed down|gone bust|gone under|"
    r"ceased trading|gone out of business|gone into administration)\b|(?:went|gone) bust\b|shut down\b)",
    re.IGNORECASE,
)
# Text right before a name that names it as the new one.
_NEW_BEFORE_RE = re.compile(
    r"(?:\b(?:going|go|went|gone) with|\b(?:mov|switch|chang|swapp|swap|shift|transferr|hand)\w*(?:\s+[\w'-]+){0,3}?"
    r"\s+(?:over\s+)?(?:to|for)|\breplaced\s+(?:\w+\s+)?(?:by|with)|\b(?:is|it's|it is|'s)\s+now|\bnow\s+(?:it'?s\s+)?|"
    r"\bnew\s+\w+(?:\s+\w+)?\s+is)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_NEW_AFTER_RE = re.compile(
    rf"^(?:\s+(?:in|at|on|from|of)\s+(?:the\s+)?{_WORD})?(?:,?\s+(?:now|instead)\b(?!\s+of)|,\s+not\s+(?:the\s+)?{_WORD}|\s+(?:takes|is taking|will take|has taken|took|"
    r"taking)\s+over\b|\s+(?:replaces|is replacing|will replace|steps in|is stepping in|stepped in|has stepped in|"
    r"have stepped in|has stepped up|will step in)\b)"
)
# Text right before a name that found someone: new only beside a name that fell through ("X can't do it
# after all … found Y"); "I've booked the Quaker hall" alone is a first statement.
_FOUND_BEFORE_RE = re.compile(
    r"\b(?:found|hired|booked|got|roped in|brought in|lined up)\s+(?:the\s+)?$", re.IGNORECASE
)
_INSTEAD_RE = re.compile(r"\binstead\b", re.IGNORECASE)
_CLAUSE_RE = re.compile(r"[,;:，；：—–()]")

# Chinese: a name runs until punctuation, a digit or a word that ends it (负责, 供应, 了, 的 …).
_ZH_RUN = r"\s*([\u4e00-\u9fffA-Za-z·]{2,16})"
_ZH_NEW_RE = re.compile(
    r"(?:改为|改成|换成|换到|换为|改到|改由|改用|更换为|变成|调整为|改请|改找|换了|挪到|搬到|移到|现在找|现在由)了?"
    + _ZH_RUN
)
_ZH_FROM_RE = re.compile(
    r"从" + _ZH_RUN + r"(?=(?:换成|换到|换为|改成|改为|改到|调到|调整为|搬到|挪到|变成|改由))"
)
_ZH_OLD_RE = re.compile(r"(?:不再(?:是|由|找|用|请)|不同意(?:用)?|否了|毙了|不用)" + _ZH_RUN)
# A name that fell through ("小王离职了", "七号库没了"); old only beside a new name.
_ZH_GONE_WORDS = (
    r"离职|辞职|走了|不干了|被占|倒闭|黄了|被否|退出|来不了|没了|不行了|排不开|没档期|调走|调去|调到别|调岗|"
    r"休产假|不做了|撤了|停业|关门了|借走|订满|约满|接不了|不接了|做不了"
)
_ZH_GONE_RE = re.compile(
    rf"(?:^|(?<=[，。；！？,.;!?：:\s]))([\u4e00-\u9fffA-Za-z·]{{2,10}}?)(?={_ZH_GONE_WORDS})"
)
# A person by surname and title ("钟师傅", "王经理", "刘工") who can no longer do it, with a few words
# between ("钟师傅那边说排不开了", "王经理下个月就调走了").
# The common surnames: "刘工", "王总" are people, "开工", "施工", "老总" are not.
_ZH_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔"
    "钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤饶"
)
_ZH_PERSON = rf"(?:[{_ZH_SURNAMES}小老][\u4e00-\u9fff]?(?:师傅|老师|经理|总监|主任|科长|处长|医生|律师)|[{_ZH_SURNAMES}](?:工|总))"
_ZH_PERSON_GONE_RE = re.compile(rf"({_ZH_PERSON})(?=[\u4e00-\u9fff]{{0,8}}?(?:{_ZH_GONE_WORDS}))")
# A firm or person whose answer came back through someone ("飞扬体育那边说那两天设备被借走了"): the
# name opens the clause, the gone word ends it. Three characters or more: "施工那边说排不开了" is about
# the site, not a name.
_ZH_SIDE_GONE_RE = re.compile(
    r"(?:^|(?<=[，。；！？,.;!?：:\s]))([\u4e00-\u9fffA-Za-z·]{3,10}?)(?=(?:那边|这边|那家|那头)"
    rf"(?:说|讲|反馈|回复|通知|回话)?[^，。；！？,.;!?]{{0,12}}?(?:{_ZH_GONE_WORDS}))"
)
# Someone else found for the job ("我另外找了启航体育"): new only beside a name that fell through.
_ZH_FOUND_RE = re.compile(r"(?:另外|另|重新)(?:找了|请了|订了|约了|联系了|租了)(?:一家|一个|一位)?" + _ZH_RUN)
_ZH_BASIS_RE = re.compile(r"以([\u4e00-\u9fffA-Za-z·]{2,10}?)为准")
_ZH_ASSIGNED_RE = re.compile(
    r"由(?!于)([\u4e00-\u9fffA-Za-z·]{2,10}?)来?(?:负责|接手|主持|对接|牵头|带队|供应|承办|担任)"
)
# Who handles it from now on ("以后跟我们对接的是许倩", "联系人换成了小周"): new only in a sentence with a cue.
_ZH_CONTACT_RE = re.compile(r"(?:对接|联系|负责|接手)(?:人|的人)?的?(?:就)?是" + _ZH_RUN)
_ZH_END_RE = re.compile(
    r"负责|接手|供应|主持|对接|牵头|带队|承办|担任|为准|那边|这边|那里|这里|那家|这家|以后|之后|举办|举行|[了的吧啊呢呀来去做办开和跟与及也都就还再]"
)
# A place named by its number ("三号厅", "二号会议室"; "5号楼" is read as a number): a name, not the day 3号 of a date.
_ZH_ORDINAL_PLACE_RE = re.compile(
    r"[一二三四五六七八九十零两]{1,3}号(?:会议室|教室|车间|展厅|展位|仓库|厅|馆|楼|室|场|仓|库|门|口|棚|台|房)"
)
_ZH_BAD_START = frozenset("这那每在再先我你他她它咱的了和与或就都也还要会能可把被让给从到下上一")


def name_key(raw: str) -> str:
    """'Prof. Halvorsen' and 'Halvorsen' are one name; so are 'The Larches' and 'the Larches', and
    'the Methodists' (who double-booked) and 'the Methodist hall'."""
    return "name=" + _singular(_bare(raw)).lower()


def _singular(bare: str) -> str:
    """A one-word name said in the plural ("the Methodists", "the Hendersons") without its "s"."""
    if (
        " " in bare
        or not bare.isascii()
        or len(bare) < 6
        or not bare.endswith("s")
        or bare.endswith(("ss", "us", "is", "es"))
    ):
        return bare
    return bare[:-1]


def _bare(raw: str) -> str:
    """The name without its title and possessive: the form looked for elsewhere."""
    out = _TITLE_RE.sub("", raw.strip())
    return re.sub(r"['’]s$", "", out)


def _en_names(text: str, a: int, b: int) -> list[tuple[int, int, bool]]:
    """Capitalised names in text[a:b], and whether each is one word opening the sentence (then maybe
    no name: "Backhaul will be …"); chat words inside a run split it ("Actually Halvorsen" -> "Halvorsen")."""
    kept = []
    for m in _NAME_RE.finditer(text, a, b):
        run: list[re.Match[str]] = []
        words = [*re.finditer(r"\S+", m.group(0))]
        for k, w in enumerate([*words, None]):
            if w is not None and (
                w.group(0).lower().rstrip(".") not in _NOT_NAMES
                or (not run and _TITLE_RE.match(w.group(0) + " "))
                or _old_or_new_in_a_name(text, a, m.start() + w.start(), w.group(0), k + 1 < len(words))
            ):
                run.append(w)
                continue
            while run and _TITLE_RE.match(run[-1].group(0) + " "):
                run.pop()  # a title alone is no name
            if run:
                s, e = m.start() + run[0].start(), m.start() + run[-1].end()
                venue = _VENUE_AFTER_RE.match(text, e, b)
                if venue and w is None:
                    e = venue.end()  # "the Scout hut", "the Methodist hall": the place is the name
                if _is_name(text, s, e):
                    kept.append((s, e, _opens_alone(text, a, s, e)))
            run = []
    return kept


def _old_or_new_in_a_name(text: str, a: int, s: int, word: str, followed: bool) -> bool:
    """ "Old" or "New" mid-sentence before another capitalised word is part of a name ("the Old
    Ropeworks", "the New Inn"); opening a sentence ("New date: …") or alone it is a chat word."""
    return word in ("Old", "New") and followed and bool(text[a:s].strip())


# A lowercase noun that makes a capitalised word the name of a place ("the Scout hut").
_VENUE_AFTER_RE = re.compile(
    r"\s+(?:hall|hut|centre|center|room|house|church|chapel|school|hotel|pub|bar|cafe|café|theatre|theater|"
    r"gallery|studio|library|club|arena|stadium|ground|barn|lodge|hostel)\b"
)


def _is_name(text: str, s: int, e: int) -> bool:
    bare = _bare(text[s:e])
    return bool(bare) and bare.lower() not in _NOT_NAMES and not (bare.isupper() and len(bare) <= 3)


def _opens_alone(text: str, a: int, s: int, e: int) -> bool:
    raw = text[s:e]
    return not text[a:s].strip() and " " not in _bare(raw) and not _TITLE_RE.match(raw)


def _en_corrected(text: str, a: int, b: int) -> list[tuple[int, int, str]]:
    names = _en_names(text, a, b)
    out: list[tuple[int, int, str]] = []
    moved_from = -1  # the end of a name said as "from X" right before "to Y"
    for i, (s, e, opens) in enumerate(names):
        before, after = text[max(a, s - 48) : s], text[e:b]
        clause_start = max([a] + [a + x.end() for x in _CLAUSE_RE.finditer(text[a:s])])
        role = ""
        if opens:
            # A capitalised word opening the sentence is a name only when what follows says so
            # ("Bellweather pulled out", "Mirela takes over"), not when it merely heads a clause.
            role = (
                "old"
                if _STRONG_AFTER_RE.match(after)
                else "new"
                if _NEW_AFTER_RE.match(after)
                else "gone"
                if _GONE_AFTER_RE.match(after)
                else ""
            )
        elif _OLD_BEFORE_RE.search(before) or _STRONG_AFTER_RE.match(after):
            role = "old"
        elif _FROM_RE.search(before) and _TO_AFTER_RE.match(after):
            role, moved_from = "old", e
        elif moved_from >= 0 and re.fullmatch(r"\s+to\s+(?:the\s+)?", text[moved_from:s]):
            role = "new"  # "from Lisbon to Porto"
        elif _NEW_BEFORE_RE.search(before) or _NEW_AFTER_RE.match(after):
            role = "new"
        elif _GONE_AFTER_RE.match(after):
            role = "gone"
        elif _FOUND_BEFORE_RE.search(before):
            role = "found"
        elif all(ps < clause_start or alone for ps, _, alone in names[:i]):
            # The first name of a clause that ends in "instead": "the Marine Lab room instead of the
            # Dunmore", "Amara will take the modelling instead".
            clause_end = next(
                (clause_start + x.start() for x in _CLAUSE_RE.finditer(text[clause_start:b])), b
            )
            if clause_end > e and _INSTEAD_RE.search(text[e:clause_end]):
                role = "new"
        if (
            role == "new"
            and out
            and out[-1][2] == "new"
            and re.fullmatch(r"\s+(?:in|at|on|from|of)\s+(?:the\s+)?", text[out[-1][1] : s])
        ):
            continue  # "Osteria Nove in Borough instead", "Colin from Cowal has stepped in": the new name's place
        if role:
            out.append((s, e, role))
    return out


# A short code that names a room, a gate, a desk ("B2", "C4", "G12"): longer codes of capitals and
# digits are identifiers of their own (value_mentions/ reads TP1363).
_CODE_RE = re.compile(r"(?<![A-Za-z0-9_.'’-])[A-Z]{1,2}\d{1,2}[A-Z]?(?![A-Za-z0-9_-])")
_ZH_CODE_GONE_RE = re.compile(r"^\s*(?:被占|没了|不行了|关了|停用|坏了|不能用)")


def _shape(code: str) -> str:
    return re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", code))


def _en_codes(text: str, a: int, b: int, taken: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Short codes a correction names as lost ("we lost B2", "B2 is gone", "B2坏了") and the code of the same
    shape that follows in the sentence as the new one ("… room C4 from now on"). Old only with
    that replacement; a code said alone stays plain text."""
    out: list[tuple[int, int, str]] = []
    gone_shape = ""
    for m in _CODE_RE.finditer(text, a, b):
        s, e = m.start(), m.end()
        if any(ts < e and s < te for ts, te, _ in taken):
            continue
        if not gone_shape and (
            _OLD_BEFORE_RE.search(text[max(a, s - 48) : s])
            or _GONE_AFTER_RE.match(text[e:b])
            or _ZH_CODE_GONE_RE.match(text[e:b])
        ):
            gone_shape = _shape(m.group(0))
            out.append((s, e, "gone"))
        elif gone_shape and _shape(m.group(0)) == gone_shape:
            out.append((s, e, "new"))
            break
    return out if len(out) == 2 else []


def _zh_name(text: str, start: int, run: str) -> tuple[int, int] | None:
    """The name at the start of a Chinese run, cut where a word ends it; None when it is no name."""
    cut = _ZH_END_RE.search(run, 2)
    name = run[: cut.start()] if cut else run
    name = name.strip()
    ordinal = _ZH_ORDINAL_PLACE_RE.fullmatch(name) is not None
    if not (2 <= len(name) <= 10) or name[0] in _ZH_BAD_START or re.search(r"\d", name):
        return None
    if not ordinal and find_values(arabic_numerals(name)):
        return None  # a date, a sum, a count: values.py reads it
    s = text.find(name, start)
    return (s, s + len(name)) if s >= 0 else None


def _zh_corrected(text: str, a: int, b: int) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []

    def add(m: re.Match[str], group: int, role: str, *, whole: bool = False) -> None:
        got = _zh_name(text, m.start(group), m.group(group))
        if whole and got is not None and got[1] - got[0] != len(m.group(group)):
            return  # "刚开工钟师傅那边就说排不开了": the words before "排不开" are no name
        if got is not None and not any(s < got[1] and got[0] < e for s, e, _ in out):
            out.append((*got, role))

    for m in _ZH_FROM_RE.finditer(text, a, b):
        add(m, 1, "old")
    for m in _ZH_OLD_RE.finditer(text, a, b):
        add(m, 1, "old")
    for m in _ZH_NEW_RE.finditer(text, a, b):
        add(m, 1, "new")
    for m in _ZH_BASIS_RE.finditer(text, a, b):
        add(m, 1, "new")
    for m in _ZH_ASSIGNED_RE.finditer(text, a, b):
        add(m, 1, "assigned")
    for m in _ZH_PERSON_GONE_RE.finditer(text, a, b):
        add(m, 1, "gone")  # before the clause-start reading, which may take words before the name
    for m in _ZH_SIDE_GONE_RE.finditer(text, a, b):
        add(m, 1, "gone", whole=True)
    for m in _ZH_GONE_RE.finditer(text, a, b):
        add(m, 1, "gone", whole=True)
    for m in _ZH_FOUND_RE.finditer(text, a, b):
        add(m, 1, "found")
    for m in _ZH_CONTACT_RE.finditer(text, a, b):
        add(m, 1, "assigned")
    return out


def corrected_names(text: str) -> tuple[NameSpan, ...]:
    """The names a correction in `text` names as old or new (or assigns), left to right."""
    out = []
    for sm in _SENTENCE_RE.finditer(text):
        a, b = sm.start(), sm.end()
        if _HEDGE_RE.search(text, a, b):
            continue
        found = _en_corrected(text, a, b) if re.search(r"[A-Z]", text[a:b]) else []
        found += _en_codes(text, a, b, found)
        if re.search(r"[\u4e00-\u9fff]", text[a:b]):
            found += _zh_corrected(text, a, b)
        for s, e, role in found:
            out.append(NameSpan(s, e, text[s:e], name_key(text[s:e]), role, a, b))
    # "X is out", "X fell through" names X as the old one only when the message names its replacement.
    gone = any(n.role == "gone" for n in out)
    out = [replace(n, role="new") if n.role == "found" else n for n in out if n.role != "found" or gone]
    replaced = any(n.role in ("new", "assigned") for n in out)  # "X调走了，以后对接的是Y"
    out = [replace(n, role="old") if n.role == "gone" else n for n in out if n.role != "gone" or replaced]
    return tuple(sorted(out, key=lambda n: n.start))


def capitalised_names(text: str) -> list[str]:
    """Every capitalised name in `text`, without its title ("the Harbourside Bookshop" -> "Harbourside
    Bookshop")."""
    if not re.search(r"[A-Z]", text):
        return []
    return [_bare(text[s:e]) for s, e, _alone in _en_names(text, 0, len(text))]


def tracked_forms(spans: Iterable[NameSpan]) -> frozenset[str]:
    """The forms to look for in the rest of the history: each name without its title."""
    bare = [_bare(n.raw) for n in spans]
    return frozenset(f for b in bare if len(b) >= 2 for f in {b, _singular(b)})


_MORE_NAME_RE = re.compile(rf"\s+({_WORD})")


def occurrence_pattern(forms: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for every form, longest first; an English form only as whole words, with a title
    before it taken into the span ("Prof. Halvorsen", "The Larches")."""
    parts = []
    for f in sorted(forms, key=len, reverse=True):
        if f.isascii():
            # Latin letters and digits bound a word; a Chinese character does not ("用Stripe支付").
            parts.append(rf"(?<![A-Za-z0-9_'’-])(?:{_TITLE}\s+)?{re.escape(f)}(?![A-Za-z0-9_-])")
        else:
            parts.append(re.escape(f))
    return re.compile("|".join(parts)) if parts else None


def name_occurrences(
    text: str, pattern: re.Pattern[str] | None, own: tuple[NameSpan, ...]
) -> tuple[NameSpan, ...]:
    """`own` (this message's corrected names) and every other occurrence of a tracked name in `text`."""
    if pattern is None:
        return own
    out = list(own)
    for m in pattern.finditer(text):
        if any(m.start() < n.end and n.start < m.end() for n in own):
            continue
        # the rest of a longer name is rewritten with it ("Dunmore Hotel's function room")
        end = m.end()
        while (
            m.group(0).isascii()
            and (more := _MORE_NAME_RE.match(text, end))
            and more.group(1).lower() not in _NOT_NAMES
        ):
            end = more.end()
        if m.group(0).isascii() and (venue := _VENUE_AFTER_RE.match(text, end)):
            end = venue.end()  # "the Methodist hall" goes with "the Methodists"
        out.append(NameSpan(m.start(), end, text[m.start() : end], name_key(m.group(0)), ""))
    return tuple(sorted(out, key=lambda n: n.start))
