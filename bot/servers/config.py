"""A server's effective settings: the environment's defaults, overridden by what its admins set.

Each setting is described once (`SETTINGS`): its labels, how a typed value is read and shown,
and its default from the environment. `/otomo settings` and the services read the same table.
The shared settings are fields of `ServerConfig`; a feature registers its own (`register`, a
`SettingsGroup`) and reads them with `config.get(setting)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, time
from typing import Any, Generic, Literal, TypeVar, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.i18n import Language, Refusal, Text, replies
from bot.settings import Settings
from bot.settings.environment import THREAD_MODES

# The persona rides along in every chat prompt of the server.
PERSONA_MAX_CHARS = 1000
# Discord ids listed per setting (channels, roles): enough for any real server.
MAX_IDS = 50
MAX_TOOL_NAMES = 50
ANSWER_MODES = ("all", "allow", "deny")
LANGUAGES = ("ja", "en")

T = TypeVar("T")
# How a setting's value is shown and checked: ids of this server's channels or roles, or a value.
SettingKind = Literal["value", "channels", "roles"]


@dataclass(frozen=True)
class ServerConfig:
    """Every per-server setting, effective (a server's value, else the environment's)."""

    answer_mode: str = "all"
    answer_channels: frozenset[int] = frozenset()
    language: Language = "ja"
    thread_conversations: str = "off"
    timezone: str = "Asia/Tokyo"
    persona: str = ""
    approver_roles: frozenset[int] = frozenset()
    editor_roles: frozenset[int] = frozenset()
    auto_approve_tools: frozenset[str] = frozenset()
    disabled_tools: frozenset[str] = frozenset()
    weather_enabled: bool = False
    weather_channel: int | None = None
    weather_place: str = "東京"
    weather_time: time | None = None
    tips_enabled: bool = False
    tips_channel: int | None = None
    tips_interval_hours: float = 6.0
    tips_quiet_hours: tuple[int, int] | None = (0, 7)
    word_pool_channels: frozenset[int] = frozenset()
    server_daily_tokens: int = 0
    member_daily_tokens: int = 0
    # US dollars a day, estimated with litellm's price map; 0 = unlimited.
    server_daily_cost: float = 0.0
    # The features' own settings by name (see `register`), read with `get`.
    feature_values: Mapping[str, Any] = field(default_factory=dict, hash=False)
    # The names a server set itself (the others come from the environment).
    overridden: frozenset[str] = field(default=frozenset(), compare=False)

    def get(self, setting: Setting[T]) -> T:
        """A feature's setting, effective here (its default when nobody registered it)."""
        return cast(T, self.feature_values.get(setting.name, setting.default))

    def value(self, name: str) -> Any:
        """Any setting's effective value, by name (the panel's view)."""
        if name in _SHARED:
            return getattr(self, name)
        return self.get(SETTINGS[name])

    def answers_in(self, *channel_ids: int | None) -> bool:
        """Whether Otomo answers in a channel, given it and its parents (a thread's channel, a
        channel's category): a listed parent counts for what is inside it."""
        if self.answer_mode == "all":
            return True
        listed = any(c in self.answer_channels for c in channel_ids if c is not None)
        return listed if self.answer_mode == "allow" else not listed

    @property
    def zone(self) -> ZoneInfo:
        """The server's time zone (scheduled posts, budgets' day)."""
        return ZoneInfo(self.timezone)

    def tool_enabled(self, name: str) -> bool:
        """Whether a tool is switched on in this server (a tool's source switches its tools)."""
        return not any(name == off or name.startswith(f"{off}.") for off in self.disabled_tools)


class BadValue(Refusal, ValueError):
    """A value a setting cannot take: a sentence for the admin, said in their language."""


def _ids(text: str) -> frozenset[int]:
    # Mentions as typed in Discord (<#123>, <@&456>) or plain ids, separated by anything.
    found = re.findall(r"\d{15,21}", text)
    if not found and text.strip() not in ("", "-", "none", "なし"):
        raise BadValue(replies.ENTER_IDS)
    if len(found) > MAX_IDS:
        raise BadValue(replies.AT_MOST, count=MAX_IDS)
    return frozenset(int(x) for x in found)


def _one_id(text: str) -> int | None:
    ids = _ids(text)
    if len(ids) > 1:
        raise BadValue(replies.ONLY_ONE_CHANNEL)
    return next(iter(ids), None)


def _names(text: str) -> frozenset[str]:
    names = frozenset(n for n in re.split(r"[\s,、]+", text.strip()) if n)
    if any(not re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", n) for n in names):
        raise BadValue(replies.ENTER_TOOL_NAMES)
    if len(names) > MAX_TOOL_NAMES:
        raise BadValue(replies.AT_MOST, count=MAX_TOOL_NAMES)
    return names


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        chosen = text.strip().lower()
        if chosen not in options:
            raise BadValue(replies.ONE_OF, options=", ".join(options))
        return chosen

    return parse


def _flag(text: str) -> bool:
    chosen = text.strip().lower()
    if chosen in ("on", "true", "yes", "1", "オン"):
        return True
    if chosen in ("off", "false", "no", "0", "オフ"):
        return False
    raise BadValue(replies.ON_OR_OFF)


def _zone(text: str) -> str:
    try:
        ZoneInfo(text.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise BadValue(replies.ENTER_ZONE) from None
    return text.strip()


def _persona(text: str) -> str:
    if len(text.strip()) > PERSONA_MAX_CHARS:
        raise BadValue(replies.PERSONA_TOO_LONG, limit=PERSONA_MAX_CHARS)
    return text.strip()


def _clock_time(text: str) -> time | None:
    match = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", text)
    if not text.strip():
        return None
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise BadValue(replies.ENTER_CLOCK_TIME)
    return time(int(match.group(1)), int(match.group(2)))


def in_quiet_hours(local: datetime, quiet: tuple[int, int] | None) -> bool:
    """Whether a local time falls in [start, end) hours; a range may wrap midnight (22-6)."""
    if quiet is None:
        return False
    start, end = quiet
    if start == end:
        return False
    if start < end:
        return start <= local.hour < end
    return local.hour >= start or local.hour < end


def parse_quiet_hours(text: str) -> tuple[int, int] | None:
    """Quiet hours typed as 0-7 (local hours, may wrap midnight), or None when empty."""
    if not text.strip():
        return None
    match = re.fullmatch(r"\s*(\d{1,2})\s*-\s*(\d{1,2})\s*", text)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 24:
        raise BadValue(replies.ENTER_HOURS)
    return int(match.group(1)), int(match.group(2))


def _hours(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        value = -1.0
    if not 0.25 <= value <= 168:
        raise BadValue(replies.HOURS_RANGE)
    return value


def _tokens(text: str) -> int:
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned.isdigit() or int(cleaned) > 10**10:
        raise BadValue(replies.WHOLE_NUMBER)
    return int(cleaned)


def _dollars(text: str) -> float:
    cleaned = text.strip().lstrip("$").replace(",", "").strip()
    try:
        value = float(cleaned)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10**6 or value != value:
        raise BadValue(replies.ENTER_DOLLARS)
    return value


def _count(text: str) -> int:
    cleaned = text.strip()
    if not cleaned.isdigit() or int(cleaned) > 1000:
        raise BadValue(replies.WHOLE_NUMBER)
    return int(cleaned)


def _place(text: str) -> str:
    if not 1 <= len(text.strip()) <= 100:
        raise BadValue(replies.ENTER_PLACE)
    return text.strip()


def _show(value: Any) -> str:
    if value is None or value == frozenset() or value == "":
        return "—"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, frozenset):
        return ", ".join(str(v) for v in sorted(value))
    if isinstance(value, time):
        return value.strftime("%H:%M")
    if isinstance(value, tuple):
        return f"{value[0]}-{value[1]}"
    return str(value)


def _json(value: Any) -> Any:
    """The value as JSON (sets as sorted lists, times as HH:MM)."""
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, time):
        return value.strftime("%H:%M")
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One per-server setting: how admins see it and how a typed value is read."""

    name: str
    ja: str
    en: str
    parse: Callable[[str], T]
    group: str
    kind: SettingKind = "value"
    # A feature's setting: its value when neither the environment nor the server gives one.
    default: Any = None
    # A feature's setting whose default comes from the environment (its feature's section).
    from_settings: Callable[[Settings], T] | None = None

    def label(self, language: Language) -> str:
        """The setting's name as an admin reads it, in language."""
        return self.ja if language == "ja" else self.en

    def show(self, value: Any) -> str:
        """The value as an admin reads it."""
        if self.kind == "channels":
            ids = value if isinstance(value, frozenset) else {value} if value else set()
            return ", ".join(f"<#{i}>" for i in sorted(ids)) or "—"
        if self.kind == "roles":
            return ", ".join(f"<@&{i}>" for i in sorted(value)) or "—"
        return _show(value)

    def default_for(self, settings: Settings) -> Any:
        """A feature's setting's default, given the environment."""
        return self.default if self.from_settings is None else self.from_settings(settings)


@dataclass(frozen=True)
class SettingsGroup:
    """A feature's per-server settings, shown together under one title in /otomo settings."""

    name: str
    title: Text
    settings: tuple[Setting[Any], ...]


SETTINGS: dict[str, Setting[Any]] = {
    s.name: s
    for s in (
        Setting(
            "answer_mode",
            "答えるチャンネルの方式 (all/allow/deny)",
            "Where Otomo answers (all/allow/deny)",
            _choice(ANSWER_MODES),
            "answering",
        ),
        Setting(
            "answer_channels",
            "許可/拒否するチャンネル",
            "Channels allowed or denied",
            _ids,
            "answering",
            "channels",
        ),
        Setting(
            "language",
            "既定の言語 (ja/en)",
            "Default language (ja/en)",
            _choice(LANGUAGES),
            "answering",
        ),
        Setting(
            "thread_conversations",
            "スレッドで答える (off/answer)",
            "Answer in a new thread (off/answer)",
            _choice(THREAD_MODES),
            "answering",
        ),
        Setting("timezone", "タイムゾーン", "Time zone", _zone, "answering"),
        Setting("persona", "ペルソナ（口調・キャラクター）", "Persona", _persona, "answering"),
        Setting("approver_roles", "承認できるロール", "Approver roles", _ids, "roles", "roles"),
        Setting(
            "editor_roles", "ナレッジ編集ロール", "Knowledge editor roles", _ids, "roles", "roles"
        ),
        Setting(
            "auto_approve_tools", "確認なしで実行するツール", "Auto-approved tools", _names, "tools"
        ),
        Setting("disabled_tools", "無効にするツール", "Tools switched off", _names, "tools"),
        Setting(
            "weather_enabled", "毎日の天気 (on/off)", "Daily weather (on/off)", _flag, "weather"
        ),
        Setting(
            "weather_channel", "天気のチャンネル", "Weather channel", _one_id, "weather", "channels"
        ),
        Setting("weather_place", "天気の場所", "Weather place", _place, "weather"),
        Setting(
            "weather_time", "天気の時刻 (HH:MM)", "Weather time (HH:MM)", _clock_time, "weather"
        ),
        Setting("tips_enabled", "Tips (on/off)", "Tips (on/off)", _flag, "tips"),
        Setting("tips_channel", "Tipsのチャンネル", "Tips channel", _one_id, "tips", "channels"),
        Setting(
            "tips_interval_hours", "Tipsの間隔（時間）", "Tips interval (hours)", _hours, "tips"
        ),
        Setting(
            "tips_quiet_hours",
            "Tipsを控える時間 (0-7)",
            "Tips quiet hours (0-7)",
            parse_quiet_hours,
            "tips",
        ),
        Setting(
            "word_pool_channels",
            "話題を集めるチャンネル",
            "Word-pool channels",
            _ids,
            "tips",
            "channels",
        ),
        Setting(
            "server_daily_tokens",
            "サーバーの1日のトークン上限 (0=無制限)",
            "Server tokens a day (0 = unlimited)",
            _tokens,
            "budgets",
        ),
        Setting(
            "member_daily_tokens",
            "メンバーの1日のトークン上限 (0=無制限)",
            "Tokens a day per member (0 = unlimited)",
            _tokens,
            "budgets",
        ),
        Setting(
            "server_daily_cost",
            "サーバーの1日の費用上限 (USD, 0=無制限)",
            "Server cost a day (USD, 0 = unlimited)",
            _dollars,
            "budgets",
        ),
    )
}
assert set(SETTINGS) == {f.name for f in fields(ServerConfig)} - {"feature_values", "overridden"}
# The shared settings: ServerConfig's fields (the features' are added by `register`).
_SHARED = frozenset(SETTINGS)
# Each group's title in the panel, in the panel's order (the features' groups after the shared).
GROUPS: dict[str, Text] = dict(replies.SETTINGS_GROUPS)


def register(group: SettingsGroup) -> None:
    """Add a feature's settings (and its group's title) to every server's; registering the
    same group again changes nothing."""
    for setting in group.settings:
        known = SETTINGS.get(setting.name)
        if known is not None and known != setting:
            raise ValueError(f"two settings are named {setting.name}")
        if setting.group != group.name:
            raise ValueError(f"{setting.name} belongs to group {group.name}")
    GROUPS.setdefault(group.name, group.title)
    for setting in group.settings:
        SETTINGS[setting.name] = setting


# The readers a feature's settings use (besides parse_quiet_hours).
parse_ids = _ids
parse_one_id = _one_id
parse_flag = _flag
parse_count = _count


def defaults_of(settings: Settings) -> ServerConfig:
    """The environment's values: what every server has until its admins change a setting."""
    return ServerConfig(
        language=settings.default_language,
        thread_conversations=settings.thread_conversations,
        timezone=settings.bot_timezone,
        persona=(settings.persona or "").strip()[:PERSONA_MAX_CHARS],
        approver_roles=frozenset(settings.approver_role_ids),
        editor_roles=frozenset(settings.kb_admin_role_ids),
        auto_approve_tools=frozenset(settings.auto_approve_tools),
        weather_enabled=(
            settings.weather_notify_channel_id is not None
            and settings.weather_notify_time is not None
        ),
        weather_channel=settings.weather_notify_channel_id,
        weather_place=settings.weather_default_place,
        weather_time=settings.weather_notify_time,
        tips_enabled=settings.tips_channel_id is not None,
        tips_channel=settings.tips_channel_id,
        tips_interval_hours=settings.tips_interval_hours,
        tips_quiet_hours=settings.quiet_hours,
        word_pool_channels=frozenset(settings.word_pool_channel_ids),
        server_daily_tokens=settings.server_daily_token_budget,
        member_daily_tokens=settings.member_daily_token_budget,
        server_daily_cost=settings.server_daily_cost_budget_usd,
        feature_values={
            name: setting.default_for(settings)
            for name, setting in SETTINGS.items()
            if name not in _SHARED
        },
    )


def to_json(values: Mapping[str, Any]) -> dict[str, Any]:
    """Typed overrides as a JSON object."""
    return {name: _json(value) for name, value in values.items()}


def from_json(stored: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides read back from JSON; unknown or unreadable names are dropped (a newer or
    older version may have written them), so a bad row never stops a server from answering."""
    values: dict[str, Any] = {}
    for name, raw in stored.items():
        setting = SETTINGS.get(name)
        if setting is None:
            continue
        try:
            values[name] = _from_json_value(setting, raw)
        except (BadValue, TypeError, ValueError):
            continue
    return values


def _from_json_value(setting: Setting[Any], raw: Any) -> Any:
    if isinstance(raw, list):
        if setting.name == "tips_quiet_hours":
            return parse_quiet_hours(f"{raw[0]}-{raw[1]}")
        joined = " ".join(str(x) for x in raw)
        return setting.parse(joined) if joined else frozenset()
    if raw is None:
        return None
    if isinstance(raw, bool):
        return raw
    return setting.parse(str(raw))


def effective(defaults: ServerConfig, overrides: Mapping[str, Any]) -> ServerConfig:
    """The defaults with a server's overrides applied."""
    shared = {name: value for name, value in overrides.items() if name in _SHARED}
    features = {name: value for name, value in overrides.items() if name not in _SHARED}
    return replace(
        defaults,
        **shared,
        feature_values={**defaults.feature_values, **features},
        overridden=frozenset(overrides),
    )
