"""Typed settings read from the environment and `.env`; the only module that reads os.environ."""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Iterable, Mapping
from datetime import time
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, cast, get_args
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PositiveInt,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
)

from bot.i18n import Language, parse_language
from bot.runtime.redaction import mask_url_password
from bot.settings.errors import SettingsError, alias_of, sentence
from bot.settings.outside_tools import ExternalToolSettings, blank_to_none, split_list
from bot.settings.shards import ShardSettings

__all__ = [
    "Settings",
    "SettingsError",
    "SettingsSection",
    "load_settings",
    "prepare_litellm_environment",
    "setting_names",
]

DEFAULT_ENV_FILE = Path(".env")

TOKEN_HELP = (
    "copy .env.example to .env and paste your bot token "
    "(Discord Developer Portal → Bot → Reset Token)"
)


ThreadMode = Literal["off", "answer"]
THREAD_MODES: tuple[str, ...] = get_args(ThreadMode)

CsvList = Annotated[list[str], BeforeValidator(split_list)]
IdList = Annotated[list[int], BeforeValidator(split_list)]
OptionalId = Annotated[PositiveInt | None, BeforeValidator(blank_to_none)]
OptionalSecret = Annotated[SecretStr | None, BeforeValidator(blank_to_none)]
OptionalStr = Annotated[str | None, BeforeValidator(blank_to_none)]


def _check_url(name: str, value: str, schemes: tuple[str, ...]) -> str:
    parts = urlsplit(value)
    if parts.scheme not in schemes or not parts.netloc:
        raise ValueError(
            f"{name} must be a URL starting with {' or '.join(s + '://' for s in schemes)} "
            f"and a host, e.g. {schemes[0]}://example.com (got {mask_url_password(value)!r})"
        )
    return value.rstrip("/")


class SettingsSection(BaseModel):
    """A feature's own environment settings (field aliases are the variable names): the
    feature declares its section, start-up checks it with the rest, the feature reads it with
    `settings.section(Model)`."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")


Section = TypeVar("Section", bound=SettingsSection)


class Settings(ExternalToolSettings, ShardSettings):
    """Every tunable the shared layers read; field aliases are the environment variable names
    (a feature's own tunables are its `SettingsSection`)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    # What `.env` and the environment said, for the features' sections; and the sections read.
    _values: dict[str, str] = PrivateAttr(default_factory=dict)
    _sections: dict[type[SettingsSection], SettingsSection] = PrivateAttr(default_factory=dict)

    # Discord
    discord_token: OptionalSecret = Field(None, alias="DISCORD_TOKEN")
    discord_api_base: str = Field("https://discord.com/api/v10", alias="DISCORD_API_BASE")
    discord_gateway_url: str = Field("wss://gateway.discord.gg/", alias="DISCORD_GATEWAY_URL")
    dev_guild_id: OptionalId = Field(None, alias="DEV_GUILD_ID")
    respond_in_dms: bool = Field(True, alias="RESPOND_IN_DMS")
    user_rate_limit_per_minute: int = Field(5, ge=1, le=600, alias="USER_RATE_LIMIT_PER_MINUTE")
    max_input_chars: int = Field(2000, ge=10, le=20000, alias="MAX_INPUT_CHARS")
    max_files_per_message: int = Field(5, ge=0, le=50, alias="MAX_FILES_PER_MESSAGE")
    max_text_file_bytes: int = Field(100_000, ge=1000, le=10**7, alias="MAX_TEXT_FILE_BYTES")
    max_image_bytes: int = Field(25_000_000, ge=10_000, le=10**8, alias="MAX_IMAGE_BYTES")
    # Below Pillow's own warning threshold (89.5 million pixels).
    max_image_pixels: int = Field(25_000_000, ge=1_000_000, le=80_000_000, alias="MAX_IMAGE_PIXELS")
    # Documents (PDF, Word, PowerPoint, Excel, CSV): read as text in a child process.
    max_document_bytes: int = Field(10_000_000, ge=10_000, le=10**8, alias="MAX_DOCUMENT_BYTES")
    max_document_pages: int = Field(50, ge=1, le=5000, alias="MAX_DOCUMENT_PAGES")
    # At most what a fence holds (bot/agent/conversation/fences.py MAX_CHARS).
    max_document_chars: int = Field(20_000, ge=1000, le=20_000, alias="MAX_DOCUMENT_CHARS")
    document_read_seconds: float = Field(15.0, ge=1, le=300, alias="DOCUMENT_READ_SECONDS")
    approver_role_ids: IdList = Field(default_factory=list, alias="APPROVER_ROLE_IDS")
    owner_ids: IdList = Field(default_factory=list, alias="OWNER_IDS")
    # The language of posts to a channel (daily weather, tips, reminders of unknown language).
    default_language: Language = Field("ja", alias="DEFAULT_LANGUAGE")
    # off: answers stay in the channel; answer: a mention in a text channel gets its answer in
    # a thread the bot opens, where members talk without mentioning it.
    thread_conversations: ThreadMode = Field("off", alias="THREAD_CONVERSATIONS")

    # Servers: every value below and above is a server's default; its admins override it
    # with /otomo settings.
    # Tokens (in + out) a day; 0 = unlimited.
    server_daily_token_budget: int = Field(0, ge=0, le=10**10, alias="SERVER_DAILY_TOKEN_BUDGET")
    member_daily_token_budget: int = Field(0, ge=0, le=10**10, alias="MEMBER_DAILY_TOKEN_BUDGET")
    # Estimated US dollars a day for a server (litellm's price map); 0 = unlimited.
    server_daily_cost_budget_usd: float = Field(
        0.0, ge=0, le=10**6, alias="SERVER_DAILY_COST_BUDGET_USD"
    )
    # How soon a change made through one process applies in the others.
    server_settings_refresh_seconds: float = Field(
        5.0, ge=0.1, le=300, alias="SERVER_SETTINGS_REFRESH_SECONDS"
    )
    # Days a server's data is kept after the bot leaves it; 0 keeps it forever.
    server_data_retention_days: int = Field(30, ge=0, le=3650, alias="SERVER_DATA_RETENTION_DAYS")

    # LLM
    llm_model: str = Field("openai/gpt-4o-mini", min_length=1, alias="LLM_MODEL")
    llm_api_base: OptionalStr = Field(None, alias="LLM_API_BASE")
    llm_api_key: OptionalSecret = Field(None, alias="LLM_API_KEY")
    llm_fallback_models: CsvList = Field(default_factory=list, alias="LLM_FALLBACK_MODELS")
    # A member waits at most LLM_ROUND_SECONDS for one model round, retries included.
    llm_timeout_seconds: float = Field(20.0, gt=0, le=600, alias="LLM_TIMEOUT_SECONDS")
    llm_num_retries: int = Field(2, ge=0, le=10, alias="LLM_NUM_RETRIES")
    llm_round_seconds: float = Field(90.0, ge=5, le=1800, alias="LLM_ROUND_SECONDS")
    llm_max_tokens: int = Field(2048, ge=16, le=200_000, alias="LLM_MAX_TOKENS")
    llm_log_prompts: bool = Field(False, alias="LLM_LOG_PROMPTS")
    llm_models: CsvList = Field(default_factory=list, alias="LLM_MODELS")
    llm_vision_models: CsvList = Field(default_factory=list, alias="LLM_VISION_MODELS")
    # One tiny request before ready; off for providers that bill per request.
    llm_check_on_start: bool = Field(True, alias="LLM_CHECK_ON_START")

    # Agent
    agent_max_steps: int = Field(6, ge=1, le=50, alias="AGENT_MAX_STEPS")
    agent_planning: bool = Field(False, alias="AGENT_PLANNING")
    approval_timeout_seconds: int = Field(300, ge=5, le=86400, alias="APPROVAL_TIMEOUT_SECONDS")
    auto_approve_tools: CsvList = Field(default_factory=list, alias="AUTO_APPROVE_TOOLS")
    history_max_messages: int = Field(30, ge=2, le=500, alias="HISTORY_MAX_MESSAGES")
    # Days kept before the daily pass deletes them; 0 keeps them forever.
    history_retention_days: int = Field(90, ge=0, le=3650, alias="HISTORY_RETENTION_DAYS")
    llm_log_retention_days: int = Field(30, ge=0, le=3650, alias="LLM_LOG_RETENTION_DAYS")

    # Storage and time
    database_url: str = Field("sqlite+aiosqlite:///data/otomo.db", alias="DATABASE_URL")
    bot_timezone: str = Field("Asia/Tokyo", alias="BOT_TIMEZONE")
    log_level: str = Field("INFO", alias="LOG_LEVEL")
    log_format: str = Field("text", alias="LOG_FORMAT")
    loop_slow_step_ms: int = Field(0, ge=0, le=60000, alias="LOOP_SLOW_STEP_MS")

    # Reminders
    reminder_max_ahead_days: int = Field(366, ge=1, le=3660, alias="REMINDER_MAX_AHEAD_DAYS")
    reminder_max_per_user: int = Field(50, ge=1, le=10000, alias="REMINDER_MAX_PER_USER")
    reminder_min_interval_minutes: int = Field(
        5, ge=1, le=1440, alias="REMINDER_MIN_INTERVAL_MINUTES"
    )

    # Weather and chit-chat
    weather_api_base: str = Field("https://api.open-meteo.com/v1", alias="WEATHER_API_BASE")
    geocoding_api_base: str = Field(
        "https://geocoding-api.open-meteo.com/v1", alias="GEOCODING_API_BASE"
    )
    weather_default_place: str = Field("東京", min_length=1, alias="WEATHER_DEFAULT_PLACE")
    weather_notify_time: Annotated[time | None, BeforeValidator(blank_to_none)] = Field(
        None, alias="WEATHER_NOTIFY_TIME"
    )
    weather_notify_channel_id: OptionalId = Field(None, alias="WEATHER_NOTIFY_CHANNEL_ID")
    weather_notify_grace_minutes: int = Field(
        30, ge=0, le=1440, alias="WEATHER_NOTIFY_GRACE_MINUTES"
    )
    tips_channel_id: OptionalId = Field(None, alias="TIPS_CHANNEL_ID")
    tips_interval_hours: float = Field(6.0, gt=0, le=168, alias="TIPS_INTERVAL_HOURS")
    tips_quiet_hours: str = Field("0-7", alias="TIPS_QUIET_HOURS")
    word_pool_channel_ids: IdList = Field(default_factory=list, alias="WORD_POOL_CHANNEL_IDS")
    persona: OptionalStr = Field(None, alias="PERSONA")

    # Health and metrics for operators (off unless a port is set)
    health_port: Annotated[int | None, BeforeValidator(blank_to_none)] = Field(
        None, ge=1, le=65535, alias="HEALTH_PORT"
    )
    health_host: str = Field("127.0.0.1", min_length=1, alias="HEALTH_HOST")

    # Knowledge base and web search
    knowledge_base_dir: Path = Field(Path("knowledge_base"), alias="KNOWLEDGE_BASE_DIR")
    kb_admin_role_ids: IdList = Field(default_factory=list, alias="KB_ADMIN_ROLE_IDS")
    kb_context_chars: int = Field(1500, ge=0, le=20000, alias="KB_CONTEXT_CHARS")
    kb_max_file_bytes: int = Field(100_000, ge=1000, le=5_000_000, alias="KB_MAX_FILE_BYTES")
    kb_outline_chars: int = Field(6000, ge=0, le=40000, alias="KB_OUTLINE_CHARS")
    tavily_api_key: OptionalSecret = Field(None, alias="TAVILY_API_KEY")
    tavily_api_base: str = Field("https://api.tavily.com", alias="TAVILY_API_BASE")
    # Semantic retrieval beside BM25, off unless a model is named (a litellm embedding model).
    embedding_model: OptionalStr = Field(None, alias="EMBEDDING_MODEL")
    embedding_api_base: OptionalStr = Field(None, alias="EMBEDDING_API_BASE")
    # Unset: LLM_API_KEY (the same provider's key is the usual case).
    embedding_api_key: OptionalSecret = Field(None, alias="EMBEDDING_API_KEY")
    embedding_dimensions: Annotated[int | None, BeforeValidator(blank_to_none)] = Field(
        None, ge=16, le=8192, alias="EMBEDDING_DIMENSIONS"
    )
    embedding_timeout_seconds: float = Field(10.0, gt=0, le=120, alias="EMBEDDING_TIMEOUT_SECONDS")
    embedding_min_similarity: float = Field(0.3, ge=-1, le=1, alias="EMBEDDING_MIN_SIMILARITY")
    # What e5- or bge-style models expect before a question and a page ("query: ", "passage: ").
    embedding_query_prefix: str = Field("", max_length=200, alias="EMBEDDING_QUERY_PREFIX")
    embedding_document_prefix: str = Field("", max_length=200, alias="EMBEDDING_DOCUMENT_PREFIX")
    # The provider's input_type for questions and pages (Cohere, Voyage, NVIDIA); empty: not sent.
    embedding_query_input_type: str = Field("", max_length=40, alias="EMBEDDING_QUERY_INPUT_TYPE")
    embedding_document_input_type: str = Field(
        "", max_length=40, alias="EMBEDDING_DOCUMENT_INPUT_TYPE"
    )

    @field_validator(
        "discord_api_base", "weather_api_base", "geocoding_api_base", "tavily_api_base"
    )
    @classmethod
    def _http_url(cls, value: str, info: Any) -> str:
        return _check_url(alias_of(Settings, info.field_name), value, ("https", "http"))

    @field_validator("llm_api_base", "embedding_api_base")
    @classmethod
    def _optional_http_url(cls, value: str | None, info: Any) -> str | None:
        return (
            None
            if value is None
            else _check_url(alias_of(Settings, info.field_name), value, ("https", "http"))
        )

    @field_validator("discord_gateway_url")
    @classmethod
    def _ws_url(cls, value: str, info: Any) -> str:
        _check_url(alias_of(Settings, info.field_name), value, ("wss", "ws"))
        return value

    @field_validator("bot_timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"BOT_TIMEZONE {value!r} is not a known time zone: use an IANA name such as "
                "Asia/Tokyo or America/New_York"
            ) from None
        return value

    @field_validator("default_language", mode="before")
    @classmethod
    def _language(cls, value: object) -> str:
        try:
            return parse_language(str(value))
        except ValueError:
            raise ValueError(
                f"DEFAULT_LANGUAGE {value!r} is not a language: use ja (Japanese) or en (English)"
            ) from None

    @field_validator("thread_conversations", mode="before")
    @classmethod
    def _thread_mode(cls, value: object) -> str:
        chosen = str(value).strip().lower()
        if chosen not in THREAD_MODES:
            raise ValueError(
                f"THREAD_CONVERSATIONS {value!r} is not a choice: use off (answers stay in the "
                "channel) or answer (the bot opens a thread for each answer)"
            )
        return chosen

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(
                f"LOG_LEVEL {value!r} is not a log level: use DEBUG, INFO, WARNING or ERROR"
            )
        return level

    @field_validator("log_format")
    @classmethod
    def _log_format(cls, value: str) -> str:
        chosen = value.strip().lower()
        if chosen not in {"text", "json"}:
            raise ValueError(
                f"LOG_FORMAT {value!r} is not a log format: use text (the default) or json "
                "(one JSON object a line, for log collectors)"
            )
        return chosen

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        if not re.match(r"^[a-z0-9]+\+[a-z0-9_]+://", value):
            raise ValueError(
                f"DATABASE_URL {mask_url_password(value)!r} is not an async SQLAlchemy URL: use "
                "sqlite+aiosqlite:///data/otomo.db or postgresql+asyncpg://user:pass@host/db"
            )
        if value.startswith("postgresql+asyncpg") and importlib.util.find_spec("asyncpg") is None:
            raise ValueError(
                "DATABASE_URL uses PostgreSQL but its driver is not installed: "
                "run make run, which installs it (or .venv/bin/pip install -e '.[postgres]')"
            )
        return value

    @field_validator("tips_quiet_hours")
    @classmethod
    def _quiet_hours(cls, value: str) -> str:
        match = re.fullmatch(r"\s*(\d{1,2})\s*-\s*(\d{1,2})\s*", value)
        if value.strip() and (not match or int(match.group(1)) > 23 or int(match.group(2)) > 24):
            raise ValueError(
                f"TIPS_QUIET_HOURS {value!r} must be a range of local hours such as 0-7 "
                "(leave it empty for no quiet hours)"
            )
        return value.strip()

    @property
    def timezone(self) -> ZoneInfo:
        """The bot's default time zone as a ZoneInfo."""
        return ZoneInfo(self.bot_timezone)

    @property
    def quiet_hours(self) -> tuple[int, int] | None:
        """Quiet hours as (start, end) local hours, or None when disabled."""
        if not self.tips_quiet_hours:
            return None
        start, end = self.tips_quiet_hours.split("-")
        return int(start), int(end)

    def section(self, model: type[Section]) -> Section:
        """A feature's settings, read from the same `.env` and environment (checked at start
        when the feature list was given to load_settings; otherwise here, on first use)."""
        found = self._sections.get(model)
        if found is None:
            found = _validated(model, self._values)
            self._sections[model] = found
        return cast(Section, found)

    def secret_values(self) -> list[str]:
        """Every value that must never be shown: secret settings and passwords inside URLs."""
        values: list[str] = []
        models: list[BaseModel] = [self, *self._sections.values()]
        for model, name in ((m, n) for m in models for n in type(m).model_fields):
            value = getattr(model, name)
            if isinstance(value, SecretStr):
                values.append(value.get_secret_value())
            elif isinstance(value, str) and "://" in value:
                password = urlsplit(value).password
                if password:
                    values.append(unquote(password))
                    values.append(password)
        return values

    def require_discord_token(self) -> str:
        """The Discord token, or a SettingsError saying how to get one."""
        token = self.discord_token.get_secret_value().strip() if self.discord_token else ""
        if not token:
            raise SettingsError([f"DISCORD_TOKEN is not set: {TOKEN_HELP}"])
        return token


def setting_names(sections: Iterable[type[SettingsSection]] = ()) -> set[str]:
    """Every environment variable read: the shared settings' and the given sections'."""
    models: tuple[type[BaseModel], ...] = (Settings, *sections)
    return {
        field.alias or name.upper()
        for model in models
        for name, field in model.model_fields.items()
    }


def _validated(model: type[Section], values: Mapping[str, str]) -> Section:
    """One section from the values read, or a SettingsError with a sentence per problem."""
    known = setting_names([model])
    try:
        return model.model_validate({k: v for k, v in values.items() if k in known})
    except ValidationError as exc:
        raise SettingsError([sentence(e, model) for e in exc.errors()]) from None


def load_settings(
    environ: Mapping[str, str] | None = None,
    env_file: Path | None = DEFAULT_ENV_FILE,
    sections: Iterable[type[SettingsSection]] = (),
) -> Settings:
    """Build Settings from `.env` overlaid by the process environment (the environment wins),
    and check the features' sections with them: every problem is reported at once."""
    values: dict[str, str] = {}
    if env_file is not None and env_file.is_file():
        values.update({k: v for k, v in dotenv_values(env_file).items() if v is not None})
    values.update(os.environ if environ is None else environ)
    known = setting_names()
    problems: list[str] = []
    try:
        settings = Settings.model_validate({k: v for k, v in values.items() if k in known})
    except ValidationError as exc:
        problems = [sentence(e, Settings) for e in exc.errors()]
    read: dict[type[SettingsSection], SettingsSection] = {}
    for model in sections:
        try:
            read[model] = _validated(model, values)
        except SettingsError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SettingsError(problems)
    settings._values = values
    settings._sections.update(read)
    return settings


def prepare_litellm_environment() -> None:
    """Make `import litellm` use its bundled price map instead of downloading one at import."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # litellm otherwise reports telemetry and checks for updates over the network.
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
