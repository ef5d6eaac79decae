"""Search terms: stop words, stemming, katakana runs, synonyms and field weights."""

from __future__ import annotations

from bot.knowledge.analysis import FIELD_WEIGHT, DocumentAnalysis, analyse_document
from bot.search.synonyms import builtin_vocabulary
from bot.search.terms import search_terms, singular_acronyms, stem


def test_stemming_folds_english_inflections_together() -> None:
    assert {stem(w) for w in ("report", "reports", "reported", "reporting")} == {"report"}
    assert stem("spamming") == "spam"
    assert stem("policies") == "policy"
    assert stem("spelling") == "spell"
    assert stem("is") == "is"
    assert stem("warnings") == stem("warning") == stem("warn") == "warn"
    assert stem("settings") == stem("setting") == "set"


def test_a_silent_e_dropped_by_a_suffix_is_dropped_from_the_word_too() -> None:
    assert {stem(w) for w in ("invite", "invites", "invited", "inviting")} == {"invit"}
    assert {stem(w) for w in ("promote", "promoting", "promoted")} == {"promot"}
    assert stem("share") == stem("sharing") == stem("shared")
    assert stem("note") == "note"  # short words keep their e ("not" is a stop word)
    assert stem("free") == "free"


def test_stop_words_are_dropped_in_both_languages() -> None:
    assert search_terms("How do I report spam?") == ["report", "spam"]
    assert "する" not in search_terms("参加するにはどうすればいい")
    assert "参加" in search_terms("参加するにはどうすればいい")


def test_half_width_and_full_width_spellings_meet() -> None:
    assert search_terms("ｻｰﾊﾞｰ") == search_terms("サーバー")
    assert search_terms("ＤＩＳＣＯＲＤ") == search_terms("discord")


def test_a_katakana_word_split_by_janome_also_counts_whole() -> None:
    # janome reads リマインドの as リマ + インド but リマインドして as one word.
    assert "りまいんど" in search_terms("リマインドの仕方")
    assert "りまいんど" in search_terms("リマインドして")


def test_title_heading_and_tag_words_weigh_more_than_body_words() -> None:
    text = "---\ntitle: Moderation\ntags: [safety]\n---\n## Reporting\n\nUse the report button.\n"

    analysis = analyse_document(text, "moderation")

    terms = analysis.sections[0].terms
    assert terms["moderation"] == FIELD_WEIGHT
    assert terms["safety"] == FIELD_WEIGHT
    assert terms["report"] == FIELD_WEIGHT + 1  # heading "Reporting" and body "report"
    assert terms["button"] == 1


def test_an_analysis_survives_its_json_round_trip() -> None:
    analysis = analyse_document("# 見出し\n\n本文です。\n", "x")

    assert DocumentAnalysis.from_json(analysis.to_json()) == analysis


def test_a_plural_acronym_is_its_singular_even_in_a_question_read_in_lower_case() -> None:
    phrases, rest = builtin_vocabulary().find_phrases(singular_acronyms("can mods read my DMs?"))

    assert "dm" in search_terms(rest) or any(p.surface == "dm" for p in phrases)
    assert "dms" not in search_terms(rest)
