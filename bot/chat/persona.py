"""The chit-chat persona and the chat handler's system-prompt text."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

from bot.settings import Settings

log = logging.getLogger(__name__)

PERSONA_FILE = "persona.md"
MAX_PERSONA_CHARS = 4000  # the persona rides along in every chat prompt

DEFAULT_PERSONA = (
    "あなたは「おとも（Otomo）」。このサーバーに住んでいる、ちょっとおちゃめなお供のボットです。\n"
    "- 返事は短く、1〜3文。友だちのように気さくに、でも失礼にはならないように。\n"
    "- 基本は日本語。相手が英語で話したら英語で返します。\n"
    "- 絵文字はたまに1つまで。説教はしない。知らないことは知らないと言う。\n"
    "- ときどき話を広げる質問をひとつ返す。"
)

# A server whose admins chose English as its language.
ENGLISH_SERVER = (
    "This server speaks English: answer in English unless the member writes in Japanese."
)

_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*(?:\n|\Z)", re.DOTALL)


def persona_text(settings: Settings, kb_dir: Path | None = None, server: str = "") -> str:
    """The server's persona (its admins' setting, PERSONA by default), else
    knowledge_base/persona.md (read each time, so edits apply at once), else the built-in
    playful persona."""
    chosen = server or settings.persona or ""
    if chosen.strip():
        return chosen.strip()[:MAX_PERSONA_CHARS]
    path = (kb_dir if kb_dir is not None else settings.knowledge_base_dir) / PERSONA_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DEFAULT_PERSONA
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("%s could not be read (%s); using the built-in persona", path, exc)
        return DEFAULT_PERSONA
    text = _FRONT_MATTER.sub("", text).strip()
    return text[:MAX_PERSONA_CHARS] if text else DEFAULT_PERSONA


def chat_instructions(persona: str, language: str = "ja") -> str:
    """The chat handler's stable instructions: the persona and the Tips habit (the topics that
    feed it come with the context, see chat_context)."""
    parts = [
        persona.strip(),
        "相手が暇そうなとき、話題がほしそうなとき、Tipsを頼まれたときは『どうでもいいTips』と"
        "して豆知識をひとつだけ添えます。題材は「この発言の話題」についての豆知識、確かなものが"
        "思いつかなければ「おすすめの題材」の豆知識（どちらも無ければ会話の話題から）。確かな事実"
        "だけを書き、自信がなければ別のよく知られた事実にします。最近よく出る言葉は、話に合う"
        "ときだけ自然に触れます。",
    ]
    if language == "en":
        parts.append(ENGLISH_SERVER)
    return "\n\n".join(parts)


def chat_context(
    topics: Sequence[str] = (), tip_topic: str | None = None, mention_topic: str | None = None
) -> str:
    """The chat prompt's context: recent server topics and what a tip would be about.

    A tip is about what the member just talked about (mention_topic) when a true one fits, else
    about tip_topic from the server's word pool. The topics are given inline (read from the
    word pool by the handler) so that a plain chat reply needs a single model call.
    """
    parts = []
    if topics:
        parts.append("最近よく出る言葉: " + "、".join(f"「{t}」" for t in topics))
    if mention_topic:
        parts.append(f"この発言の話題: 「{mention_topic}」")
    if tip_topic:
        parts.append(f"おすすめの題材: 「{tip_topic}」")
    return "\n".join(parts)
