"""The chit-chat persona: the server's setting, knowledge_base/persona.md, or the built-in one."""

from __future__ import annotations

import logging
import re
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
