from __future__ import annotations

from helpers_context import node

from canvasweb.context.capture import capture_facts, find_superseded_candidates, sensitivity_marked


def kinds(text):
    return {(f.kind, f.value) for f in capture_facts(text=text)}


def test_config_values():
    assert ("config", "5433") in kinds("The metrics store listens on port 5433.")
    assert ("config", "5433") in kinds("数据库端口是 5433。")
    assert ("config", "5433") in kinds("端口 5433")
    got = kinds("timeout = 30s and max_connections=100")
    assert ("config", "30s") in got and ("config", "100") in got


def test_numbers_with_units():
    assert ("number", "2 hours") in kinds("API sessions use signed cookies and expire after 2 hours.")


def test_rules():
    facts = capture_facts(text="Never deploy on Fridays. 不要把密码写进代码。")
    assert [f.kind for f in facts] == ["rule", "rule"]


def test_corrections():
    assert ("correction", "5434") in kinds("Please change the database port to 5434.")
    assert ("correction", "30 秒") in kinds("超时改成 30 秒")
    assert ("correction", "96 people") in kinds("Change the team size to 96 people.")
    assert ("correction", "1.8%") in kinds(
        "Refunds are lower than we thought: revise the refund rate to 1.8% monthly."
    )
    assert ("correction", "Redis") in kinds("Use Redis instead of Memcached")
    assert ("correction", "Postgres 16") in kinds("We switched to Postgres 16")
    assert ("correction", "6 hours") in kinds(
        "Correction: API sessions use signed cookies and expire after 6 hours."
    )
    f = capture_facts(text="不是 Memcached，而是 Redis")[0]
    assert (f.kind, f.value, f.previous_value) == ("correction", "Redis", "Memcached")


def test_credentials_are_never_captured_as_values():
    assert all(
        "hunter2" not in (f.value or "") + f.content for f in capture_facts(text="password=hunter2 port 5433")
    )


def test_find_superseded_candidates():
    nodes = [
        node("db", "The metrics store listens on port 5433."),
        node("redis", "Redis port 6379"),
        node("jwt", "API sessions use signed cookies and expire after 2 hours."),
        node("cache", "Use Memcached for the page cache layer, nothing else."),
        node("zh", "页面缓存统一用 Memcached，别的都不用。"),
        node("gone", "The metrics store listens on port 5432.", superseded_by="db"),
    ]

    def cands(text):
        out = set()
        for f in capture_facts(text=text):
            out |= {n.id for n in find_superseded_candidates(fact=f, nodes=nodes)}
        return out

    assert cands("Please change the metrics store port to 5434.") == {"db"}
    assert cands("Correction: API sessions use signed cookies and expire after 6 hours.") == {"jwt"}
    assert cands("Correction: Use Redis for the cache layer.") == {"cache"}
    assert cands("更正：页面缓存统一用 Redis，别的都不用。") == {"zh"}
    assert cands("The metrics store listens on port 5433.") == set()  # same value: nothing to supersede


def sensitivities(text):
    return {f.sensitivity for f in capture_facts(text=text)}


def test_restricted_facts_keep_who_may_see_them():
    assert sensitivities("GMV 目标 3.2 亿元，这个是内部信息") == {"internal"}
    assert sensitivities("内部信息，查看者不能看：今年校招薪资包本科 22 万，硕士 28 万。") == {"internal"}
    assert sensitivities("This is confidential: the budget is 40000 dollars.") == {"internal"}
    assert sensitivities("Keep it internal. The launch moves to port 8443.") == {
        "internal"
    }  # marker in another sentence
    assert sensitivities("机密：服务器端口 7443") == {"secret"}
    assert sensitivities("The top secret rollout uses port 9443.") == {"secret"}
    assert sensitivities("AppSecret 也放一下，设成机密节点：超时 5 秒") == {"secret"}
    # said as who may look, not as a label
    assert sensitivities("每件的到手成本我算了是 38.6 元，这个只给内部看，别让外面的人知道。") == {"internal"}
    assert sensitivities(
        "Our floor price is 4200 dollars, only for the team, don't let the client see it."
    ) == {"internal"}
    assert sensitivities("备用金是 8600 元，放在二楼保险柜，你帮我记一下，设成保密的。") == {"secret"}
    assert sensitivities("The garage door code is 2614, but don't put it where anyone can see.") == {"secret"}
    assert sensitivities(
        "The cash float in the office safe is £600, staff only, so keep it hidden please."
    ) == {"secret"}
    assert sensitivities("Not for the newsletter or anyone outside the team: the raffle float is £250.") == {
        "internal"
    }
    # a credential said with its value is a secret whatever the message says about it
    assert sensitivity_marked("仓库门锁密码小周昨天换了：480273，回头再说。") == "secret"
    assert sensitivity_marked("The lockbox by the shed door is 7731 for the weekend.") == "secret"
    assert sensitivity_marked("Office wifi password: Lantern2291") == "secret"
    # the sentence that holds a credential is never offered as a card (its value is masked)
    assert [f.content for f in capture_facts(text="后门门禁密码换成 2846 了。开业日期定在 9 月 12 日。")] == [
        "开业日期：9 月 12 日"
    ]
    # "don't pass it on" in other words
    assert sensitivities("首付款 6.4 万先别跟财务以外的人说。") == {"internal"}
    assert sensitivities("样品单价 18.5 元，别截图外传。") == {"internal"}
    assert sensitivities("Keep this between us: the rent is £1,450 a month.") == {"internal"}


def test_ordinary_uses_of_the_words_stay_public():
    assert sensitivities("The internal API listens on port 8080.") == {"public"}
    assert sensitivities("内部系统超时 30 秒") == {"public"}
    assert sensitivities("Not confidential: the port is 80.") == {"public"}
    assert sensitivities("可以公开：发布会超时 30 秒") == {"public"}
    assert sensitivities("The token budget is 4000 tokens.") == {"public"}
    # Rules about passwords and secrets are not secret themselves.
    assert sensitivities("The metrics store listens on port 5433; never commit its password.") == {"public"}
    assert sensitivities("指标库端口是 5433，密码只放环境变量，不要提交到仓库。") == {"public"}
    assert sensitivities("Store secrets in Vault; the vault port is 8200.") == {"public"}
    assert sensitivities("The parts list only for the kitchen is 12 items.") == {"public"}
    assert sensitivities("内部装修预算 12 万") == {"public"}
    assert sensitivities("Only staff can park in bay 3; the car park fee is £4.") == {"public"}
    assert sensitivities("The PIN reader at the till takes 4 seconds per card.") == {"public"}
    assert sensitivities("密码有效期是 90 天，门禁卡 3 张。") == {"public"}


def test_numbers_inside_identifiers_are_not_values():
    assert all(
        f.value != "9 d" for f in capture_facts(text="小程序 AppID 是 wx5e8a1c3f9d20b7，大家对接都用这个。")
    )
    assert ("number", "2 小时") in kinds("会议持续2 小时")  # right after a CJK character


def test_questions_are_not_captured_as_facts():
    assert capture_facts(text="要不要开线上会场，让出差的同事也能参加？") == []
    assert capture_facts(text="Can we move the database port to 5434?") == []
    assert kinds("Never deploy on Fridays. Should we also freeze on Mondays?") == {("rule", None)}


def test_words_that_only_look_like_markers_stay_public():
    assert sensitivities("保密条款：保密期限 3 年，从项目结项之日起算。") == {"public"}
    assert sensitivities("用户名大小写敏感，最长 32 个字符。") == {"public"}
    assert sensitivities("对内存的要求是 512 MB。") == {"public"}
    assert sensitivities("这个数字请保密：预算 48 万元。") == {"internal"}
