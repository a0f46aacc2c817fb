"""Who may see a captured fact, from what the user said about it ("this is internal", "机密").

The strictest marker anywhere in the message applies to every fact in it,
since people put the warning before or after the fact, or in the next
sentence. Negated markers ("not confidential", "可以公开") do not count. Being
too strict costs a click; too lax shows the fact to viewers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..types import NodeData

# Who may see it, as people say it. Plain "internal API" or "内部系统" describe a thing, not its
# audience, so "internal" needs a marker word around it.
_NEGATED_MARK_RE = re.compile(
    r"\b(?:not|no longer|isn't|is not|nothing)\s+(?:a\s+|an\s+)?(?:secret|confidential|internal|classified|sensitive)\b|"
    r"\bnot\s+(?:a\s+)?secret\b|\bcan be (?:shared|public)\b|"
    r"不是(?:机密|秘密|内部信息|内部资料|保密)|(?:无需|不用|不需要|不必)保密|可以公开|可公开|公开信息",
    re.IGNORECASE,
)
# Words such as "password" or "secrets" usually appear in rules about them ("never hard-code its
# password", "store secrets in Vault"), so only phrases that classify the statement itself count.
# Credential values are masked anyway (mask_credentials).
_SECRET_MARK_RE = re.compile(
    r"\b(?:top[ -]secret|classified|owners? only|keep (?:it|this|that|them) secret|(?:this|that|it) is (?:a )?secret)\b|"
    r"\b(?:don'?t|do not|never) (?:put|leave|write|show) (?:it|this|that|them) (?:where|anywhere|somewhere) "
    r"(?:anyone|everyone|people|others|the \w+) (?:can|could|will|might) see\b|"
    r"\bkeep (?:it|this|that|them) hidden\b|"
    r"\b(?:somewhere |where )?only (?:I|me) (?:can|could|should|may|will) see\b|\bfor my eyes only\b|\bjust for me to see\b|"
    r"机密|绝密|只有(?:负责人|所有者|owner)(?:能|可以)看|仅(?:负责人|所有者|owner)可见|(?:设|标|改)(?:成|为|置为)(?:保密|机密)|"
    r"只(?:有我|给我|让我)(?:自己)?(?:能|可以)?看",
    re.IGNORECASE,
)
_INTERNAL_MARK_RE = re.compile(
    r"\binternal(?:[ -]only| use only| use| information| info| data| figures?| numbers?| codename| code name)\b|"
    r"\b(?:is|are|keep (?:it|this|that|them))\s+internal\b|\bconfidential\b|\bunder NDA\b|"
    r"\b(?:do not|don't|never) (?:share|publish|disclose|tell)\b|\bnot (?:for|to be shared with) (?:viewers|the public|customers|clients|outsiders)\b|"
    r"\bviewers? (?:must not|mustn't|can't|cannot|should not|shouldn't|may not) (?:see|know)\b|\bnot public\b|\bcodename\b|"
    r"内部(?:信息|资料|数据|消息|代号|使用|可见|口径|文件|价格|数字|人员)|仅限?内部|对内(?:公开|使用|可见)|不对外|"
    r"(?:不要|不得|不能|禁止|别)(?:[^，。；！？,;!?\n]{0,4}?)(?:外传|泄露|公开|对外)|"
    # "先别跟大宇以外的人说", "不要告诉其他人"
    r"(?:别|不要|不能|不许|先别)(?:跟|和|对|向|告诉)[^，。；！？,;!?\n]{0,8}?(?:以外的人|外人|别人|其他人|任何人)|"
    # Not bare 保密 / 敏感: "保密期限 3 年" (a contract's term) and "大小写敏感" say nothing about the audience.
    r"(?:对外|注意|需要|要|请|务必)保密|保密(?:信息|资料|数据)|敏感(?:信息|数据|内容)|"
    r"查看者(?:不能|不可以|不要|不应|看不到|无权)|不(?:让|给)查看者|不公开|未公开|代号|"
    # "这个数只给内部看", "别让外面的人看到", "only for the team's eyes"
    r"只(?:给|让|限|在)内部|(?:别|不要|不能|不许)让外(?:面|边|部)?的?人|外人(?:不能|别|不要)看|"
    r"\bonly for (?:the team|us|internal eyes|our eyes)\b|\b(?:staff|team)[ -]only\b|\bfor staff only\b|"
    r"\b(?:not for|never (?:goes |go )?to) (?:the )?(?:parents|customers|clients|public|press|anyone outside)\b|\banyone outside (?:the|our) (?:team|trip team|company)\b|\b(?:don'?t|do not|never) let (?:outsiders|the client|clients|viewers|anyone outside)\b|"
    r"\b(?:don'?t|do not|never) tell (?:anyone|anybody|the others|other people)\b|\bbetween (?:you and me|us|ourselves)\b|"
    # "she does NOT want my brothers knowing", "I don't want the parents to know yet", "不想让其他家长知道"
    r"\b(?:does|do|did)(?:n'?t| not) want (?:my|the|her|his|their|our|any|anyone|anybody|people|them)\b[^.!?\n]{0,24}?"
    r"\b(?:knowing|to know|to find out|finding out|to see)\b|\bkeep (?:it|this|that) (?:quiet|private|under wraps|to ourselves)\b|"
    r"不(?:想|希望|要)让[^，。；！？,;!?\n]{0,8}?知道|"
    # "这个数千万别让供应商知道", "这个别让店员看到", "don't let the suppliers see it"
    r"(?:别|不要|不能|不许)让[^，。；！？,;!?\n]{1,8}?(?:知道|看到|看见|晓得|发现)|"
    r"\b(?:don'?t|do not|never) let (?:the |our |any |those )?\w+(?: \w+)? (?:know|see|find out|get wind)\b|"
    # "for the committee only, not the members", "for committee eyes only", "somewhere private"
    r"\bfor (?:the )?(?:committee|board|trustees|staff|team|organi[sz]ers|owners?|management|directors|leaders|"
    r"teachers|family|parents|adults)(?:'s)?(?: eyes)? only\b|\bnot (?:for )?the (?:members|cast|players|parents|"
    r"kids|pupils|volunteers|public|customers)\b(?!['’])|\bsomewhere private\b|"
    # "让我们别跟邻居说", "这个别在家长群里提"
    r"(?:别|不要|先别|不能|不许)(?:跟|和|对|向|在)[^，。；！？,;!?\n]{1,8}?(?:说|讲|提|透露)",
    re.IGNORECASE,
)
# A credential said with its value ("the alarm code is 4821", "保险柜密码何珊刚设好了：629017") is a
# secret whatever else the message says; rules about credentials name no value ("never commit its
# password", "密码只放环境变量"). The value must hold a digit: "the PIN is required" is a rule.
_CREDENTIAL_VALUE_RE = re.compile(
    r"\b(?:password|passcode|passphrase|pin(?: code| number)?|key ?safe|lock ?box|(?:door|gate|alarm|safe|"
    r"padlock|entry|access|wi-?fi) (?:code|password|pin)|combination)\b[^.!?\n]{0,24}?(?:\bis\b|:|=)\s*"
    r"[\"'“]?(?=[A-Za-z0-9!@#$%^&*_\-+=./~]*\d)[A-Za-z0-9!@#$%^&*_\-+=./~]{3,}|"
    r"(?:密码|口令|密钥|秘钥|开锁码|门禁码)[^，。；！？,;!?\n]{0,10}?(?:[:=：]|是|为|(?:改成|设成|设为|换成|改为)了?)\s*"
    r"[\"'“「]?(?=[A-Za-z0-9!@#$%^&*_\-+=./~]*\d)[A-Za-z0-9!@#$%^&*_\-+=./~]{3,}",
    re.IGNORECASE,
)
SENSITIVITY_RANK = {"public": 0, "internal": 1, "secret": 2}


def sensitivity_marked(text: str) -> str:
    """The strictest sensitivity `text` asks for: "secret", "internal" or "public"."""
    text = _NEGATED_MARK_RE.sub(" ", text)
    if _SECRET_MARK_RE.search(text) or _CREDENTIAL_VALUE_RE.search(text):
        return "secret"
    if _INTERNAL_MARK_RE.search(text):
        return "internal"
    return "public"


def audience_marked(text: str) -> str:
    """The strictest audience a message's own words ask for ("keep this between us", "somewhere only I
    can see"): the history withholds the message from readers below it. A credential's value alone is
    masked instead (mask_credentials), so it does not hide the rest of the message."""
    text = _NEGATED_MARK_RE.sub(" ", text)
    if _SECRET_MARK_RE.search(text):
        return "secret"
    if _INTERNAL_MARK_RE.search(text):
        return "internal"
    return "public"


def stricter(a: str, b: str) -> str:
    return a if SENSITIVITY_RANK.get(a, 0) >= SENSITIVITY_RANK.get(b, 0) else b


def more_sensitive(a: str, b: str) -> bool:
    """`a` is stricter than `b`."""
    return SENSITIVITY_RANK.get(a, 0) > SENSITIVITY_RANK.get(b, 0)


def restated_sensitivity(text: str, nodes: Sequence[NodeData]) -> str:
    """The strictest sensitivity of a live node that `text` restates (the history filter's test).

    People type a value into the chat and put it on the canvas as internal in the same turn; a
    suggestion captured from that message must not offer it to everyone as a public node.
    """
    from ..canvas_index import CanvasIndex  # the index imports capture's siblings: import late
    from ..text import extract_terms, split_sentences

    hidden = [n for n in nodes if n.sensitivity != "public" and not n.superseded_by and not n.archived]
    if not hidden or not text:
        return "public"
    index = CanvasIndex.build(nodes=list(nodes), edges=[])
    found = "public"
    for sentence in split_sentences(text):
        terms = extract_terms(sentence)
        if index.is_restricted_text(terms, role="editor"):
            return "secret"
        if index.is_restricted_text(terms, role="viewer"):
            found = "internal"
    return found
