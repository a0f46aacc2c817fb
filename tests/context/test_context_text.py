from __future__ import annotations

from canvasweb.context.text import extract_terms, flatten_markup, jaccard, match_score, stem


def test_english_terms_lowercase_stopwords_and_stems():
    terms = extract_terms("How long before a Login Session expires?")
    assert {"login", "session", "expir"} <= terms
    assert "how" not in terms and "a" not in terms and "before" not in terms
    assert stem("caching") == stem("cache") and stem("sessions") == stem("session")


def test_chinese_bigrams_and_unigrams():
    terms = extract_terms("数据库端口")
    assert {"数据", "据库", "库端", "端口"} <= terms
    assert "猫" in extract_terms("猫")
    assert "我们" not in extract_terms("我们的数据库")  # function characters dropped


def test_mixed_language_and_numbers():
    terms = extract_terms("登录态用 JWT，过期时间 6 小时")
    assert {"jwt", "6", "登录", "过期", "小时"} <= terms


def test_match_score():
    q = extract_terms("我们的数据库端口是多少？")
    n = extract_terms("数据库端口是 5433，密码只放环境变量")
    assert 0 < match_score(q, n) <= 1
    assert match_score(q, extract_terms("缓存层统一用 Redis")) == 0
    assert match_score(set(), n) == 0
    assert match_score({"a", "b"}, {"a"}, weights={"a": 3.0, "b": 1.0}) == 0.75
    assert jaccard(frozenset("ab"), frozenset("bc")) == 1 / 3


def test_flatten_markdown_and_html():
    md = (
        "# Title\nSome **bold** and [docs](http://x.y) ![arch diagram](a.png)\n\n"
        "| host | port |\n|---|---|\n| db | 5433 |\n\n"
        "```python\nx = **not bold**\n```\n"
        "<p>Hello<br>world &amp; <b>you</b></p>"
        '<table><tr><td>c1</td><td>c2</td></tr></table><img src=x alt="alt text"><script>evil()</script>'
    )
    out = flatten_markup(md)
    assert "Title" in out and "#" not in out.split("```")[0]
    assert "bold" in out and "**bold**" not in out
    assert "arch diagram" in out and "a.png" not in out
    assert "host | port" in out and "db | 5433" in out and "---" not in out
    assert "```python\nx = **not bold**\n```" in out  # code fences kept as text
    assert "world & you" in out and "<b>" not in out and "c1 | c2" in out
    assert "alt text" in out and "evil" not in out


def test_flatten_plain_text_unchanged():
    assert flatten_markup("数据库端口是 5433。 plain") == "数据库端口是 5433。 plain"
