"""Whether a message in a listening channel asks Otomo something: cheap, both languages.

No model call decides it (chatter would cost tokens on every message): a question mark, a
Japanese question or request ending, an English question or request opening, or the bot's
name. Greetings, reactions and remarks to the room ("www", "おはよう", "nice") are chatter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Otomo's names as members write them (the bot's display name is added by the caller).
NAMES = ("otomo", "おとも", "オトモ", "お供")

# Shorter than this is chatter even with a "?" ("え？", "?").
MIN_CHARS = 4

_QUESTION_MARK = re.compile(r"[?？]\s*[!！wｗ笑😅🤔]*\s*$|[?？]\s")
# Japanese endings of a question or a request, at the end of the message (before punctuation).
_JA_ENDINGS = re.compile(
    r"(教えて|おしえて|ください|下さい|くださいな|お願い|おねがい|ですか|ますか|でしょうか|"
    r"かな|かなあ|かなぁ|だっけ|っけ|どう|どうやって|どうすれば|どうしたら|なに|何|なんで|"
    r"なぜ|どこ|いつ|だれ|誰|どれ|どっち|ある|いる|できる|して|してほしい|ほしい|知りたい|"
    r"わかる|分かる|の)[。.!！〜~ー…\s]*$"
)
# The endings above that are also plain statements' endings need a question word before them.
_JA_WEAK = re.compile(r"(ある|いる|できる|して|の)[。.!！〜~ー…\s]*$")
_JA_QUESTION_WORDS = re.compile(
    r"(どう|なに|何|なんで|なぜ|どこ|いつ|だれ|誰|どれ|どっち|どの|いくら|どんな|何時|何日)"
)
# Asking wherever it stands in the sentence: a request, a how-to, a call for anyone who knows.
_JA_ASKING = re.compile(
    r"(教えて|おしえて|お願い|おねがい|ください|下さい|どうやって|どうすれば|どうしたら|"
    r"知りたい|わかる人|分かる人|知ってる人|誰か|だれか)"
)
_EN_OPENINGS = re.compile(
    r"^(what|whats|what's|why|how|when|where|who|whom|whose|which|is|are|am|was|were|do|does|"
    r"did|can|could|would|will|should|shall|may|might|have|has|please|pls|tell me|explain|"
    r"help|remind|show me|give me|any idea|anyone know|does anyone)\b"
)
_EN_REQUESTS = re.compile(r"\b(please|pls|can you|could you|would you|help me|tell me|explain)\b")


def looks_like_a_question(text: str, names: Iterable[str] = ()) -> bool:
    """True when the text asks something or asks for something, or calls Otomo by name."""
    said = unicodedata.normalize("NFKC", text).strip()
    if len(said) < MIN_CHARS:
        return False
    lowered = said.lower()
    if any(name and name.lower() in lowered for name in (*NAMES, *names)):
        return True
    if _QUESTION_MARK.search(said):
        return True
    if _EN_OPENINGS.search(lowered) and len(lowered.split()) >= 3:
        return True
    if _EN_REQUESTS.search(lowered):
        return True
    if _JA_ASKING.search(said):
        return True
    ending = _JA_ENDINGS.search(said)
    if ending is None:
        return False
    if _JA_WEAK.search(said):
        return _JA_QUESTION_WORDS.search(said) is not None
    return True
