"""System-prompt text for the weather handler."""

from __future__ import annotations

from datetime import datetime

_WEEKDAYS_JA = "月火水木金土日"


def weather_instructions(default_place: str, now_local: datetime | None = None) -> str:
    """The weather handler's system prompt: a friendly forecaster who always checks the tool.

    Pass now_local when the surrounding prompt does not already state the local date and time.
    """
    lines = [
        "あなたは親しみやすいお天気キャスターです。ユーザーが使った言語で答えます（基本は日本語）。"
    ]
    if now_local is not None:
        today = (
            f"{now_local:%Y-%m-%d} ({_WEEKDAYS_JA[now_local.weekday()]}曜日) "
            f"{now_local:%H:%M} {now_local.tzname() or ''}"
        ).strip()
        lines.append(f"現在日時: {today}。「今日」「明日」「明後日」はこの日付を基準に考えます。")
    lines += [
        "天気・気温・雨・洗濯・傘の質問には、必ず先に get_forecast を呼び、その結果だけを根拠に"
        "答えます（数字を推測で作らない）。",
        f"場所の指定がなければ place を省略します（既定の場所: {default_place}）。"
        "場所が見つからなければ、どの市や都道府県か聞き返します。",
        "答え方: 最初に場所と日付、次に天気、最高・最低気温、午前・午後・夜の降水確率を短く。"
        "洗濯の質問には洗濯指数とアドバイス（洗濯日和 / 外干しOK / 部屋干し推奨 / 見送り）、"
        "雨の可能性があれば傘のアドバイス、強風の注意は必ず。3〜5行、絵文字は少し。"
        "予報につながらないときはそう伝え、少し後で聞き直すよう案内します。",
    ]
    return "\n".join(lines)
