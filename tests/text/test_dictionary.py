"""The compacted janome dictionary gives exactly the tokens of the one janome builds."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from array import array

from bot.text.analysis import _tokenizer, _tokenizer_lock
from bot.text.dictionary import compact

# janome's dictionary is one per process and compacting changes it for good: the comparison
# with an untouched dictionary runs in a fresh interpreter.
COMPARE = textwrap.dedent(
    """
    import json, sys
    from janome.tokenizer import Tokenizer
    from bot.text.dictionary import compact

    text = sys.stdin.read()

    def analyse(tokenizer):
        return [
            [t.surface, t.part_of_speech, t.base_form, t.reading, t.phonetic]
            for t in tokenizer.tokenize(text)
        ]

    plain = Tokenizer()
    before = analyse(plain)
    pairs = [(i, j) for i in range(0, 1316, 7) for j in range(0, 1316, 11)]
    costs = [plain.sys_dic.get_trans_cost(i, j) for i, j in pairs]
    done = compact(plain)
    # Entries looked up before were cached: start afresh so the arrays are what is read.
    type(plain.sys_dic)._find_entry.cache_clear()
    type(plain.sys_dic).lookup_extra.cache_clear()
    after = analyse(plain)
    costs_after = [plain.sys_dic.get_trans_cost(i, j) for i, j in pairs]
    # A tokenizer made later imports the modules compacting let go of again.
    later = analyse(Tokenizer())
    print(json.dumps({"done": done, "same": before == after == later, "tokens": len(before),
                      "costs_same": costs == costs_after}))
    """
)

SAMPLE = (
    "明日の9時に歯医者ってリマインドして。東京スカイツリーへのお越しは、東武スカイツリーライン"
    "「とうきょうスカイツリー駅」が便利です。暇だなー、ｶﾀｶﾅもＡＢＣも123も混ぜてみる。"
    "Otomo answers in English too: don't break on apostrophes or e-mail@example.com."
)


def test_compacted_dictionary_tokenises_exactly_like_janomes_own() -> None:
    result = subprocess.run(
        [sys.executable, "-c", COMPARE],
        input=SAMPLE * 3,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    outcome = json.loads(result.stdout)
    assert outcome["done"] is True
    assert outcome["tokens"] > 60
    assert outcome["same"] is True
    assert outcome["costs_same"] is True


def test_the_shared_tokenizer_is_compacted_once() -> None:
    with _tokenizer_lock:
        tokenizer = _tokenizer()
    dictionary = tokenizer.sys_dic
    assert all(isinstance(row, array) for row in dictionary.connections)
    for part in (dictionary.entries_compact, dictionary.entries_extra):
        assert all(isinstance(index["positions"], array) for _, index in part.values())
    assert compact(tokenizer) is True  # a second call finds it done and changes nothing


def test_a_tokenizer_of_another_shape_is_left_alone() -> None:
    class Other:
        sys_dic = object()

    assert compact(Other()) is False
