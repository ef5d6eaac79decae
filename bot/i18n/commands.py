"""Slash commands as members see them in Discord's menu: descriptions, option descriptions and
choices, each in English (what the command declares) and Japanese (what Discord shows to members
whose Discord is in Japanese). Command names stay the same in both, as the help and docs name
them."""

from __future__ import annotations

from collections.abc import Iterable

from bot.i18n import Text

SLASH: tuple[Text, ...] = (
    # /otomo and /tools
    Text(ja="Otomo について", en="About Otomo"),
    Text(ja="できること", en="What Otomo can do"),
    Text(ja="このチャンネルで覚えていること", en="What I keep about you here"),
    Text(ja="会話の記憶を削除", en="Delete your conversation history"),
    Text(ja="どこの記憶を消すか", en="Where to forget"),
    Text(ja="このチャンネル", en="This channel"),
    Text(ja="すべてのチャンネルとDM", en="Everywhere"),
    Text(ja="モデルの利用状況（管理者）", en="Model usage per day (admins)"),
    Text(ja="日数", en="How many days"),
    Text(ja="このサーバーの設定（管理者）", en="This server's settings (admins)"),
    Text(ja="このサーバーかボット全体か", en="This server or the whole bot"),
    Text(ja="このサーバー", en="This server"),
    Text(ja="ボット全体（オーナー）", en="Whole bot (owners)"),
    Text(ja="この会話用のスレッドを作る", en="Open a thread for a conversation with Otomo"),
    Text(ja="スレッドの名前", en="The thread's name"),
    Text(ja="ツールの許可", en="Tool permissions"),
    Text(ja="常に許可した操作", en="Your always-allow grants"),
    Text(ja="外部ツールと状態（管理者）", en="External tools (admins)"),
    # /model
    Text(ja="使うAIモデル", en="The AI model Otomo uses"),
    Text(ja="切り替え先のモデル", en="The model to switch to"),
    # /kb
    Text(ja="ナレッジベースの管理", en="Manage the knowledge base"),
    Text(ja="ファイル一覧", en="List the files"),
    Text(ja="このフォルダの中だけ（例: guides）", en="Only files in this folder (e.g. guides)"),
    Text(ja="ページ番号", en="Page number"),
    Text(ja="ファイルの中身", en="Show a file"),
    Text(ja="例: faq.md, guides/rules.md", en="e.g. faq.md, guides/rules.md"),
    Text(ja="変更履歴", en="Recent changes"),
    Text(ja="このファイルだけ", en="Only this file"),
    Text(ja="件数", en="How many changes"),
    Text(ja="ファイルを編集", en="Edit a file"),
    Text(ja="例: faq.md", en="e.g. faq.md"),
    Text(
        ja="4,000文字を超えるファイルは .md を添付して置き換え", en="Replace with an uploaded .md"
    ),
    Text(ja="ファイルを作る", en="Create a file"),
    Text(ja="例: guides/boost.md", en="e.g. guides/boost.md"),
    Text(ja="本文の .md ファイル", en="The .md file"),
    Text(
        ja="全サーバー共通のファイルにする（ボットの管理者のみ）",
        en="A shared file of every server (the bot's owners only)",
    ),
    Text(ja="ファイルを削除", en="Delete a file"),
    Text(ja="ディスクから読み直す", en="Re-read the files from disk"),
    # /notes
    Text(ja="サーバーのメモ帳", en="The server notebook"),
    Text(ja="メモの一覧・検索", en="List or search the notes"),
    Text(ja="探す言葉（例: 旅行）", en="Words to look for (e.g. travel)"),
    Text(ja="メモを読む", en="Read a note"),
    Text(ja="メモの番号（例: 12）", en="The note's number (e.g. 12)"),
    Text(ja="メモを削除", en="Delete a note"),
    # /remind and /timezone
    Text(ja="リマインド", en="Reminders"),
    Text(ja="自分のリマインド一覧", en="Your pending reminders"),
    Text(ja="リマインドを取り消す", en="Cancel a reminder"),
    Text(ja="リマインドの番号（#12 なら 12）", en="The reminder's number (12 for #12)"),
    Text(ja="止めた人からのリマインドをまた受け取る", en="Take reminders from a member again"),
    Text(
        ja="また受け取る相手（空なら一覧）",
        en="Whose reminders to take again; leave empty to list them",
    ),
    Text(ja="タイムゾーン", en="Time zone"),
    Text(ja="タイムゾーンを設定", en="Set your time zone"),
    Text(
        ja="例: Asia/Tokyo, Europe/London, America/New_York",
        en="e.g. Asia/Tokyo, Europe/London, America/New_York",
    ),
    Text(ja="今のタイムゾーン", en="Show your time zone"),
)

# Message commands (right-click a message → Apps): their names are what members read, so
# unlike slash commands' names they are translated.
MESSAGE_ACTIONS: tuple[Text, ...] = (
    Text(ja="このメッセージをリマインド", en="Remind me about this"),
    Text(ja="Otomo に聞く", en="Ask Otomo about this"),
)

# What Discord shows a member whose Discord is in Japanese, by the English the command declares
# (the features' own commands add theirs with `add`).
JAPANESE: dict[str, str] = {text.en: text.ja for text in (*SLASH, *MESSAGE_ACTIONS)}


def add(texts: Iterable[Text]) -> None:
    """A feature's slash-command texts: Discord shows their Japanese like the catalog's own
    (adding the same text again changes nothing)."""
    for text in texts:
        known = JAPANESE.get(text.en)
        if known is not None and known != text.ja:
            raise ValueError(f"two Japanese forms of the command text {text.en!r}")
        JAPANESE[text.en] = text.ja
