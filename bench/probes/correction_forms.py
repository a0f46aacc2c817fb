"""Correction forms probe: 18 hand-written corrections (EN and ZH, none from a scenario set).

Each case states a value, 29 unrelated turns, a correction in ordinary words, 29 more turns, then a
question. It compiles the `canvas` prompt at 1,000 and 2,000 tokens and lists every compile in which
the new value is missing or the old one still reaches the prompt. Run from the repository root:

    .venv/bin/python bench/probes/correction_forms.py
"""

import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canvasweb.config.settings")
import django

django.setup()
from canvasweb.context.compiler import compile_context  # noqa: E402 (after django.setup)
from canvasweb.context.types import CompileRequest, MessageData  # noqa: E402

CH = [
    "Did anyone book the meeting room for Friday?",
    "Yes, I did.",
    "Lunch is pizza again.",
    "ok",
    "The printer on the third floor jams.",
    "I'll call IT.",
    "Nice weather today.",
    "好的",
    "收到",
    "The coffee machine is fixed.",
]
CASES = [
    (
        "The venue fits 180 guests.",
        "Update from the venue: capacity is down to 150 after the fire inspection.",
        "How many people can we invite at most?",
        "150",
        "180",
    ),
    (
        "Kickoff is on 12 May.",
        "Kickoff slipped a week, it's 19 May now.",
        "When do we start?",
        "19 May",
        "12 May",
    ),
    (
        "We'll use Stripe for payments.",
        "Finance vetoed Stripe; we're going with Adyen.",
        "Which payment provider are we using?",
        "Adyen",
        "Stripe",
    ),
    (
        "Budget for the fit-out: 40k.",
        "Bad news, the fit-out budget got cut to 32k.",
        "How much can we spend on the fit-out?",
        "32k",
        "40k",
    ),
    (
        "Her flight lands at 14:05.",
        "Delay: her flight now lands 16:40.",
        "When should I be at the airport?",
        "16:40",
        "14:05",
    ),
    (
        "Our contact at the print shop is Maria.",
        "Maria left the print shop; our contact there is Tom now.",
        "Who do I call at the printers?",
        "Tom",
        "Maria",
    ),
    (
        "Rent is €1,200 a month.",
        "Landlord raised the rent: €1,350 from March.",
        "What do we pay the landlord?",
        "€1,350",
        "€1,200",
    ),
    (
        "Meeting room B2 is ours on Tuesdays.",
        "We lost B2, Tuesdays are in room C4 from now on.",
        "Where do we meet on Tuesdays?",
        "C4",
        "B2",
    ),
    (
        "The sample size is 400 interviews.",
        "Dr Osei wants more power, so 600 interviews instead of what I said.",
        "How many interviews do we run?",
        "600",
        "400",
    ),
    (
        "Launch price: $19.",
        "Marketing convinced me, launch price goes up to $24.",
        "What will it cost at launch?",
        "$24",
        "$19",
    ),
    ("场地能坐180人。", "消防检查后场地只能坐150人了。", "最多能请多少人？", "150", "180"),
    ("开工定在5月12号。", "开工推迟一周，改到5月19号。", "哪天开始干？", "5月19号", "5月12号"),
    ("支付用Stripe。", "财务不同意Stripe，换成Adyen。", "我们接哪家支付？", "Adyen", "Stripe"),
    ("装修预算四万。", "坏消息，装修预算被砍到三万二。", "装修能花多少钱？", "三万二", "四万"),
    ("印刷厂那边对接人是小王。", "小王离职了，印刷厂现在找老李。", "印刷的事找谁？", "老李", "小王"),
    ("房租每月3500元。", "房东涨价了，下个月起房租4000元。", "每个月给房东多少？", "4000元", "3500元"),
    ("样本量是400份问卷。", "导师说不够，问卷要做到600份。", "问卷一共发多少份？", "600份", "400份"),
    ("发布会在三号厅。", "三号厅被占了，发布会挪到五号厅。", "发布会在哪个厅？", "五号厅", "三号厅"),
]


def msgs(a, b):
    out = [MessageData(id="m0", role="user", content=a)]
    for i in range(1, 30):
        out.append(
            MessageData(
                id=f"m{i}", role="user" if i % 2 == 0 else "assistant", content=CH[i % len(CH)] + f" ({i})"
            )
        )
    out.append(MessageData(id="m30", role="user", content=b))
    for i in range(31, 60):
        out.append(
            MessageData(
                id=f"m{i}", role="user" if i % 2 == 0 else "assistant", content=CH[i % len(CH)] + f" ({i})"
            )
        )
    return tuple(out)


bad = 0
for a, b, q, new, old in CASES:
    for budget in (1000, 2000):
        c = compile_context(
            request=CompileRequest(
                messages=msgs(a, b), question=q, budget=budget, system_prompt="You are the assistant."
            )
        )
        text = "\n".join(m["content"] for m in c.messages)
        ok_new = new in text
        stale = old in text.replace(new, "")
        if stale or not ok_new:
            bad += 1
            print(f"{budget} new={ok_new} stale={stale} | {a} -> {b}")
print(f"{bad} of {2 * len(CASES)} compiles carry the old value or miss the new one")
