"""The knowledge base end to end: cited answers, hot reload, /kb for admins, web search saved."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    MEMBER_ROLE_ID,
    TARO_ID,
    FakeDiscord,
    InteractionRecord,
    Json,
)
from tests.fakes.injections import unfenced
from tests.fakes.llm_server import ChatRequest, ScriptedLLM, text, tool_call
from tests.fakes.tavily import API_KEY, FakeResult, FakeTavily

pytestmark = pytest.mark.e2e

RULES = """---
title: サーバールール
---
# サーバールール

## 禁止事項

- スパムや宣伝（招待リンクを含む）は禁止です。
- @everyone と @here は運営だけが使います。

## 違反した場合

一度目は警告、二度目は一時的なミュートになります。
"""
RULES_SOURCE = "knowledge_base/rules.md"
EPHEMERAL = 64
MODAL = 9
DEFERRED = 5


def _write_rules(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge_base"
    root.mkdir(exist_ok=True)
    (root / "rules.md").write_text(RULES, "utf-8")
    return root


@asynccontextmanager
async def _otomo(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, **settings: Any
) -> AsyncIterator[RunningBot]:
    """The bot over a knowledge base holding rules.md, once its index has loaded."""
    _write_rules(tmp_path)
    # Synced commands: the fake then checks their definitions and types options (attachments).
    settings.setdefault("DEV_GUILD_ID", GUILD_ID)
    async with running_bot(tmp_path, fake=fake, llm=llm, **settings) as otomo:
        await asyncio.wait_for(otomo.app.core.deps.knowledge.wait_ready(), 10)
        yield otomo


def _system(request: ChatRequest) -> str:
    return request.system


async def _until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Poll a condition outside the fakes (the index's hot reload) until it holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"the index did not pick up the change in {timeout} s"
        await asyncio.sleep(0.05)


async def _slash(
    fake: FakeDiscord, name: str, options: dict[str, Any] | None = None, user_id: int = ADMIN_ID
) -> tuple[InteractionRecord, Json]:
    """Run a slash command; return its record and the bot's first response."""
    record = await fake.invoke_slash(
        name, options or {}, user_id=user_id, channel_id=GENERAL_CHANNEL_ID
    )
    return record, await record.wait_response()


async def _answer(
    fake: FakeDiscord, name: str, options: dict[str, Any] | None = None, user_id: int = ADMIN_ID
) -> Json:
    """The message a slash command ends with: its reply, or the followup after a defer."""
    record, response = await _slash(fake, name, options, user_id)
    if response["type"] == DEFERRED:
        return await record.wait_followup()
    return dict(response["data"])


async def _open_form(fake: FakeDiscord, name: str, options: dict[str, Any]) -> tuple[str, str]:
    """Run /kb edit or /kb new; return the modal's custom_id and the text it is pre-filled with."""
    _, response = await _slash(fake, name, options)
    assert response["type"] == MODAL, response
    modal = response["data"]
    field = modal["components"][0]["component"]
    assert field["custom_id"] == "text" and field["max_length"] == 4000
    return modal["custom_id"], field.get("value", "")


async def _submit_form(fake: FakeDiscord, custom_id: str, body: str) -> Json:
    """Submit the admin's modal; return the message the bot answers with."""
    record = await fake.submit_modal(custom_id, {"text": body}, user_id=ADMIN_ID)
    assert (await record.wait_response())["type"] == DEFERRED
    return await record.wait_followup()


def _is_ephemeral(message: Json) -> bool:
    return bool(int(message.get("flags") or 0) & EPHEMERAL)


# -- answers from the knowledge base ------------------------------------------------------


async def test_an_answer_from_the_knowledge_base_cites_its_file(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text(f"スパムや宣伝は禁止です。\n\n出典: {RULES_SOURCE}"))
    async with _otomo(tmp_path, fake, llm) as otomo:
        _, replies = await otomo.ask("サーバーのルールは？")

    prompt = _system(llm.last_request)
    assert "<knowledge>" in prompt and "スパムや宣伝（招待リンクを含む）は禁止です。" in prompt
    assert f"出典: {RULES_SOURCE}" in prompt
    assert "search_knowledge" in llm.last_request.tool_names
    assert llm.request_count == 1  # the excerpt answered it: no search round trip
    assert replies[-1]["content"].endswith(f"出典: {RULES_SOURCE}")


async def test_a_file_edited_on_disk_is_in_the_next_questions_prompt_without_a_restart(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はい。")
    async with _otomo(tmp_path, fake, llm) as otomo:
        await otomo.ask("サーバーのルールは？")
        assert "一度目は警告" in _system(llm.last_request)

        rules = tmp_path / "knowledge_base" / "rules.md"
        rules.write_text(RULES.replace("一度目は警告", "一度目から即退場"), "utf-8")
        knowledge = otomo.app.core.deps.knowledge
        await _until(lambda: any("即退場" in h.text for h in knowledge.search("違反", 3)))
        await otomo.ask("サーバーのルールは？")

    assert "一度目から即退場" in _system(llm.last_request)
    assert "一度目は警告" not in _system(llm.last_request)


# -- who may use /kb, and which paths ---------------------------------------------------------


@pytest.mark.parametrize("user_id", [TARO_ID, HANA_ID])
async def test_members_without_manage_server_or_a_kb_role_are_refused_privately(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, user_id: int
) -> None:
    async with _otomo(tmp_path, fake, llm) as otomo:
        listing = await _answer(fake, "kb list", user_id=user_id)
        _, editing = await _slash(fake, "kb edit", {"path": "rules.md"}, user_id)
        _, deleting = await _slash(fake, "kb delete", {"path": "rules.md"}, user_id)

        for answer in (listing, editing["data"], deleting["data"]):
            assert _is_ephemeral(answer)
            assert "サーバー管理" in answer["content"]
        assert editing["type"] != MODAL
        assert (otomo.settings.knowledge_base_dir / "rules.md").read_text("utf-8") == RULES


async def test_a_kb_admin_role_may_use_kb_without_manage_server(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with _otomo(tmp_path, fake, llm, KB_ADMIN_ROLE_IDS=MEMBER_ROLE_ID):
        listing = await _answer(fake, "kb list", user_id=HANA_ID)

    assert _is_ephemeral(listing)
    assert f"`{RULES_SOURCE}` {len(RULES.encode()):,} B — サーバールール" in listing["content"]


@pytest.mark.parametrize(
    ("path", "japanese", "english"),
    [
        ("../x.md", "`..` で上のフォルダには出られません", "Paths cannot go up with `..`"),
        ("guides/../../x.md", "`..` で上のフォルダには出られません", "cannot go up with `..`"),
        ("/tmp/x.md", "絶対パスではなく", "not an absolute path"),
        ("notes.txt", "`.md` で終わらせて", "must end in `.md`"),
    ],
)
async def test_paths_outside_the_knowledge_base_or_not_markdown_are_refused_with_sentences(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, path: str, japanese: str, english: str
) -> None:
    async with _otomo(tmp_path, fake, llm):
        for command in ("kb new", "kb edit", "kb show"):
            _, response = await _slash(fake, command, {"path": path})

            assert response["type"] == 4, (command, response)
            assert _is_ephemeral(response["data"])
            content = response["data"]["content"]
            # The member's Discord is in Japanese: the Japanese sentence alone.
            assert japanese in content and content.startswith("⚠️ ")
            assert english not in content and "/ " not in content.replace("/kb", "")
        fake.world.client_locale = "en-US"
        _, response = await _slash(fake, "kb show", {"path": path})
        content = response["data"]["content"]
        # A member whose Discord is in English reads the English one alone.
        assert english in content and content.startswith("⚠️ ") and japanese not in content
        assert not any("\u3040" <= char <= "\u9fff" for char in content), content
    assert not (tmp_path / "x.md").exists()
    assert fake.deadline_misses == []


async def test_text_over_the_size_cap_is_refused_and_the_admins_text_is_handed_back(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with _otomo(tmp_path, fake, llm, KB_MAX_FILE_BYTES=2000) as otomo:
        uploaded = await _answer(
            fake, "kb new", {"path": "big.md", "file": ("big.md", b"#" * 3000)}
        )
        custom_id, _ = await _open_form(fake, "kb new", {"path": "big.md"})
        typed = "あ" * 1000  # 3,000 bytes in UTF-8
        refused = await _submit_form(fake, custom_id, typed)

        assert "3,000 バイト" in uploaded["content"]
        assert "2,000 バイト（KB_MAX_FILE_BYTES）まで" in uploaded["content"]
        assert "KB_MAX_FILE_BYTES" in refused["content"] and _is_ephemeral(refused)
        assert [a["filename"] for a in refused["attachments"]] == ["big.md"]
        assert fake.attachment_data(int(refused["id"]))["big.md"].decode().startswith(typed)
        assert not (otomo.settings.knowledge_base_dir / "big.md").exists()


# -- editing through Discord ------------------------------------------------------------------


async def test_an_edit_in_the_form_reaches_the_next_answer_and_the_history(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はい。")
    async with _otomo(tmp_path, fake, llm) as otomo:
        custom_id, shown = await _open_form(fake, "kb edit", {"path": "rules.md"})
        assert shown == RULES
        edited = shown.replace("一度目は警告", "一度目は口頭注意")
        saved = await _submit_form(fake, custom_id, edited)
        await otomo.ask("サーバーのルールは？")
        history = await _answer(fake, "kb history")

    assert saved["content"].startswith("✅ `knowledge_base/rules.md` を保存しました")
    assert "一度目は口頭注意" in _system(llm.last_request)
    line = history["content"].splitlines()[1]
    assert "✏️ 編集 `knowledge_base/rules.md` — Kenji" in line
    assert f"({len(RULES.encode()):,} B → {len(edited.encode()):,} B)" in line
    assert "（Asia/Tokyo）" in history["content"].splitlines()[0]
    assert history["allowed_mentions"]["parse"] == []


async def test_an_edit_saved_meanwhile_is_not_overwritten_by_an_older_form(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with _otomo(tmp_path, fake, llm) as otomo:
        rules = otomo.settings.knowledge_base_dir / "rules.md"
        custom_id, shown = await _open_form(fake, "kb edit", {"path": "rules.md"})
        rules.write_text(RULES + "\n追記: 先に保存された変更\n", "utf-8")
        refused = await _submit_form(fake, custom_id, shown + "\n私の変更\n")

        assert "開いた後でほかの人が変更しました" in refused["content"]
        assert "先に保存された変更" in rules.read_text("utf-8")
        assert "私の変更" not in rules.read_text("utf-8")
        assert "私の変更" in fake.attachment_data(int(refused["id"]))["rules.md"].decode()


async def test_a_file_too_long_for_the_form_is_replaced_by_an_uploaded_attachment(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    long_text = "# 長いガイド\n\n" + "古い説明の行です。\n" * 600  # ~6,000 characters
    async with _otomo(tmp_path, fake, llm) as otomo:
        guide = otomo.settings.knowledge_base_dir / "guide.md"
        guide.write_text(long_text, "utf-8")
        await _answer(fake, "kb reload")

        record, response = await _slash(fake, "kb edit", {"path": "guide.md"})
        advice = response["data"]
        replacement = (
            "# 長いガイド\n\n" + "新しい説明の行です。ブースト特典は絵文字枠です。\n" * 300
        )
        uploaded = await _answer(
            fake, "kb edit", {"path": "guide.md", "file": ("guide.md", replacement.encode())}
        )
        found = otomo.app.core.deps.knowledge.search("ブースト特典", 1)

    assert response["type"] == 4 and _is_ephemeral(advice)
    assert "`/kb edit path:guide.md file:<ファイル>`" in advice["content"]
    original = record.original_message()
    assert original is not None and [a["filename"] for a in original["attachments"]] == ["guide.md"]
    assert fake.attachment_data(int(original["id"]))["guide.md"].decode() == long_text
    assert uploaded["content"].startswith("✅ `knowledge_base/guide.md` を保存しました")
    assert guide.read_text("utf-8") == replacement
    assert found and found[0].path == "guide.md"


async def test_show_lists_new_and_delete_with_confirmation(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with _otomo(tmp_path, fake, llm) as otomo:
        root = otomo.settings.knowledge_base_dir
        shown = await _answer(fake, "kb show", {"path": "knowledge_base/rules.md"})
        custom_id, template = await _open_form(fake, "kb new", {"path": "guides/boost.md"})
        created = await _submit_form(fake, custom_id, template + "ブーストの特典は絵文字枠です。")
        listing = await _answer(fake, "kb list")
        record, question = await _slash(fake, "kb delete", {"path": "rules.md"})
        asked = record.original_message()
        assert asked is not None
        yes = next(c for c in custom_ids(asked) if c.endswith(":yes"))
        click = await fake.click_button(int(asked["id"]), yes, ADMIN_ID)
        await click.wait_response()
        done = await click.wait_original_edit()
        history = await _answer(fake, "kb history", {"path": "rules.md"})

    assert shown["content"].startswith(f"📄 `{RULES_SOURCE}`")
    assert "```md\n---\ntitle: サーバールール" in shown["content"]
    assert shown["allowed_mentions"]["parse"] == []  # the file's @everyone pings nobody
    assert template == "# boost\n\n"
    # A new file is this server's own (its folder under the shared base).
    own = f"knowledge_base/servers/{GUILD_ID}/guides/boost.md"
    assert created["content"].startswith(f"🆕 `{own}` を作りました")
    assert (root / "servers" / str(GUILD_ID) / "guides" / "boost.md").exists()
    assert f"`{own}`" in listing["content"]
    assert "2 ファイル, " in listing["content"]
    assert _is_ephemeral(question["data"]) and "削除しますか" in question["data"]["content"]
    assert done["content"].startswith("🗑️ `knowledge_base/rules.md` を削除しました")
    assert done["components"] == []
    assert not (root / "rules.md").exists()
    assert "rules.md" not in otomo.app.core.deps.knowledge.paths()
    assert "🗑️ 削除 `knowledge_base/rules.md`" in history["content"]


async def test_reload_reports_files_changed_outside_discord(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with _otomo(tmp_path, fake, llm) as otomo:
        # Without the 2-second hot reload, only /kb reload can notice the new file.
        await otomo.app.core.deps.knowledge.stop()
        (otomo.settings.knowledge_base_dir / "events.md").write_text(
            "# イベント\n\n毎週土曜はゲーム大会です。\n", "utf-8"
        )
        record, response = await _slash(fake, "kb reload")
        report = await record.wait_followup()
        again = await _answer(fake, "kb reload")
        found = otomo.app.core.deps.knowledge.search("ゲーム大会", 1)

    assert response["type"] == DEFERRED  # acknowledged first: tokenising may take a while
    assert response["data"]["flags"] & EPHEMERAL
    assert report["content"].startswith("🔄 再読み込みしました: 追加 1、更新 0、削除 0")
    assert "追加: `events.md`" in report["content"]
    assert "変更はありませんでした" in again["content"]
    assert found and found[0].path == "events.md"


# -- web search ---------------------------------------------------------------------------------

QUERY = "Discord サーバーブースト 特典"
RESULTS = [
    FakeResult(
        "Server Boosting FAQ",
        "https://support.example.com/boosting",
        "Boosted servers get more emoji slots, better audio and a custom invite link.",
    ),
    FakeResult(
        "サーバーブーストの特典まとめ",
        "https://blog.example.jp/boost",
        "ブーストするとサーバーの絵文字枠が増え、配信画質も上がります。",
    ),
]


async def test_an_approved_web_search_answers_and_is_found_in_the_knowledge_base_later(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        tool_call("web_search", {"query": QUERY}),
        text("ブーストで絵文字枠が増えます。[1] https://support.example.com/boosting"),
        tool_call("search_knowledge", {"query": "ブースト 絵文字"}),
        text("前に調べた結果では、絵文字枠が増えます。"),
    )
    async with FakeTavily() as tavily:
        tavily.answer_for(QUERY, RESULTS, answer="ブーストで絵文字枠と音質が上がります。")
        async with _otomo(
            tmp_path, fake, llm, TAVILY_API_KEY=API_KEY, TAVILY_API_BASE=tavily.url
        ) as otomo:
            await otomo.mention("サーバーブーストの最新の特典を調べて")
            await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
            card = approval_card(fake)
            assert card is not None and card["embeds"][0]["title"] == "🔧 ウェブを検索"
            assert tavily.requests == []  # nothing is searched before the approval
            approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
            await fake.click_button(int(card["id"]), approve, HANA_ID)
            await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "絵文字枠" in m["content"])
            await otomo.idle()
            searched = llm.requests[1]

            _, replies = await otomo.ask("ブーストすると絵文字は増える？")

    assert "web_search" in llm.requests[0].tool_names
    # The web's words reach the model fenced as a web page.
    result = json.loads(unfenced(searched.messages_with_role("tool")[-1]["content"]))
    assert result["output"]["results"][0]["url"] == "https://support.example.com/boosting"
    saved_to = result["output"]["saved_to"]
    # Archived in this server's own folder.
    assert saved_to.startswith(f"knowledge_base/servers/{GUILD_ID}/web_search/")
    assert saved_to.endswith(".md")
    saved = tmp_path / saved_to
    assert "https://blog.example.jp/boost" in saved.read_text("utf-8")
    later = llm.requests[2]
    assert f"出典: {saved_to}" in _system(later) and "(saved web search)" in _system(later)
    found = json.loads(unfenced(llm.last_request.messages_with_role("tool")[-1]["content"]))
    assert found["output"]["results"][0]["source"] == saved_to
    assert len(tavily.requests) == 1  # the later question was answered locally
    assert any(m["content"] == "前に調べた結果では、絵文字枠が増えます。" for m in replies)


async def test_without_a_tavily_key_web_search_is_not_offered_and_help_says_how_to_enable_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("ナレッジベースには載っていません。"))
    async with _otomo(tmp_path, fake, llm) as otomo:
        await otomo.ask("サーバーブーストの特典は？")
        shown = await _answer(fake, "otomo help", user_id=HANA_ID)

    assert "search_knowledge" in llm.last_request.tool_names
    assert "web_search" not in llm.last_request.tool_names
    assert "TAVILY_API_KEY" in shown["content"]
