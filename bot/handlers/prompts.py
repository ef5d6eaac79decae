"""System prompts shared by every handler: who Otomo is, the current local time, house rules."""

from __future__ import annotations

from bot.agent.loop import PromptInput

WEEKDAYS_JA = "月火水木金土日"

BASE_RULES = (
    "あなたは Discord サーバーの相棒ボット「Otomo（お供）」です。"
    "You are Otomo, a companion bot on a Discord server for a Japanese-speaking community.\n"
    "- Reply in the language the user wrote in (Japanese by default), friendly and brief.\n"
    "- Use Discord markdown. Keep answers under about 1,500 characters unless asked for more.\n"
    "- Never write @everyone or @here and never mention roles.\n"
    "- When a tool call is rejected or fails, say so plainly; do not retry a rejected call "
    "unless the user asks again.\n"
    "- Do not invent facts about this server: use the knowledge base when it is offered."
)


def now_line(prompt: PromptInput) -> str:
    """The current local date, time, weekday and zone, which the model needs for dates."""
    local = prompt.local_now
    weekday = WEEKDAYS_JA[local.weekday()]
    return (
        f"現在日時 / Now: {local:%Y-%m-%d} ({weekday}, {local:%A}) {local:%H:%M}, "
        f"time zone {prompt.timezone.key}. The user is {prompt.user_name}."
    )


def compose(prompt: PromptInput, *sections: str) -> str:
    """Base rules, the current time, then the handler's own sections (empty ones skipped)."""
    parts = [BASE_RULES, now_line(prompt), *[s.strip() for s in sections if s and s.strip()]]
    return "\n\n".join(parts)
