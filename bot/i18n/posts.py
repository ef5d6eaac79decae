"""Sentences of the bot's own posts: the daily weather, tips and delivered reminders."""

from __future__ import annotations

from bot.i18n import Text

# -- the daily weather ---------------------------------------------------------------------------

WEATHER_TITLE = Text(ja="{day} {place}の天気", en="Weather in {place}, {day}")
WEATHER_CONDITIONS = Text(ja="天気: {conditions}", en="Sky: {conditions}")
WEATHER_TEMPERATURES = Text(
    ja="気温: 最高 {high} / 最低 {low}", en="Temperature: high {high}, low {low}"
)
WEATHER_RAIN = Text(
    ja="降水確率: 午前 {morning} / 午後 {afternoon} / 夜 {evening}",
    en="Chance of rain: morning {morning}, afternoon {afternoon}, evening {evening}",
)
WEATHER_HUMIDITY = Text(ja="湿度: {percent}%", en="Humidity: {percent}%")
WEATHER_WIND = Text(ja="風: 最大 {speed}m/s", en="Wind: up to {speed} m/s")
LAUNDRY_ADVICE = Text(ja="洗濯指数 {index}: {advice}", en="Laundry index {index}: {advice}")
LAUNDRY_NOTE = Text(ja="（{note}）", en=" ({note})")
LAUNDRY = Text(ja="🧺 洗濯", en="🧺 Laundry")
UMBRELLA = Text(ja="☂️ 傘", en="☂️ Umbrella")

# -- tips ----------------------------------------------------------------------------------------

TIP_HEADER = Text(ja="💡 **どうでもいいTips**（{topic}）", en="💡 **Useless tip** ({topic})")

# -- delivered reminders -------------------------------------------------------------------------

REMINDER_TITLE = Text(ja="⏰ リマインド", en="⏰ Reminder")
REMINDER_WHEN = Text(ja="予定", en="When")
REMINDER_DUE = Text(ja="{when} の予定", en="Due {when}")
REMINDER_LATE = Text(ja="（{late}遅れでのお届けです）", en="(late by {late})")
REMINDER_REPEATS = Text(ja="繰り返し", en="Repeats")
REMINDER_ORIGIN = Text(ja="元のメッセージ", en="Original message")
REMINDER_JUMP = Text(ja="ジャンプ", en="Jump")
REMINDER_FROM = Text(ja="依頼した人", en="From")
CONSENT_REQUEST = Text(
    ja="<@{target}> {asker} さんから、{when} にリマインドの依頼です:「{what}」\n"
    "受け取りますか？（受け取るまでは送られません）",
    en="<@{target}> {asker} asks to remind you at {when}: “{what}”\n"
    "Accept it? (Nothing is sent until you do.)",
)
CONSENT_EXPIRED = Text(
    ja="<@{asker}> <@{target}> さんが時間までに受け取らなかったので、リマインド「{what}」は"
    "送りませんでした。",
    en="<@{asker}> <@{target}> did not accept your reminder “{what}” before its time, so it was "
    "not sent.",
)
REMINDER_NOT_POSTED = Text(
    ja="⚠️ リマインド「{quoted}」（#{reminder_id}、{when}）を {channel} に投稿できませんでした"
    "（{reason}）。チャンネルでの私の権限（メッセージの送信・埋め込みリンク）を確認するか、"
    "別のチャンネルでもう一度頼んでください。",
    en='⚠️ I could not post your reminder "{quoted}" (#{reminder_id}, {when}) in {channel} '
    "({reason}). Check that I may send messages and embed links there, or ask me again in "
    "another channel.",
)
