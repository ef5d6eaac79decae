"""The fake Discord speaks the gateway and REST well enough for the real discord.py client."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
import time
from collections.abc import AsyncIterator
from typing import Any, TypeVar

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakes.discord_server import (
    ADMIN_ID,
    ADMIN_ROLE_ID,
    BOT_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    MEMBER_ROLE_ID,
    RANDOM_CHANNEL_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SECOND_MEMBER_ROLE_ID,
    SECOND_OWNER_ID,
    SECOND_RANDOM_CHANNEL_ID,
    SORA_ID,
    TARO_ID,
    THREAD_ID,
    FakeDiscord,
    World,
    point_discord_py_at,
)

pytestmark = pytest.mark.e2e

INTENTS = discord.Intents.none()
INTENTS.guilds = True
INTENTS.guild_messages = True
INTENTS.message_content = True
INTENTS.members = True
INTENTS.dm_messages = True

# on_ready fires this long after the last GUILD_CREATE (discord.py's default is 2 s).
READY_DELAY = 0.05

ClientT = TypeVar("ClientT", bound=discord.Client)


class RecordingClient(discord.Client):
    """A real discord.Client that queues every message it receives."""

    def __init__(self, intents: discord.Intents = INTENTS, **options: Any) -> None:
        super().__init__(intents=intents, guild_ready_timeout=READY_DELAY, **options)
        self.received: asyncio.Queue[discord.Message] = asyncio.Queue()

    async def on_message(self, message: discord.Message) -> None:
        await self.received.put(message)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Skip the 5 s discord.py sleeps before every re-IDENTIFY (identify rate limit)."""

    async def next_message(self, timeout: float = 5.0) -> discord.Message:  # noqa: ASYNC109
        """The next message the gateway delivered."""
        return await asyncio.wait_for(self.received.get(), timeout)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        restore = point_discord_py_at(fake)
        try:
            yield fake
        finally:
            restore()


@contextlib.asynccontextmanager
async def running(client: ClientT, fake: FakeDiscord) -> AsyncIterator[ClientT]:
    """Log the real client in, wait for on_ready, and close it cleanly afterwards."""
    async with client:
        await client.login(fake.token or "any")
        runner = asyncio.create_task(client.connect())
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {runner, ready}, timeout=10, return_when=asyncio.FIRST_COMPLETED
        )
        try:
            if ready not in done:
                ready.cancel()
                if runner.done():
                    runner.result()  # re-raise why the connection ended
                raise AssertionError(f"the client never became ready\n{fake.describe()}")
            yield client
        finally:
            await client.close()
            await runner


@pytest.fixture
async def client(fake: FakeDiscord) -> AsyncIterator[RecordingClient]:
    async with running(RecordingClient(), fake) as client:
        yield client


def general(client: discord.Client) -> discord.TextChannel:
    channel = client.get_channel(GENERAL_CHANNEL_ID)
    assert isinstance(channel, discord.TextChannel)
    return channel


# -- connecting -----------------------------------------------------------------------------


async def test_on_ready_sees_the_guild_with_its_channels_roles_and_members(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    guild = client.get_guild(GUILD_ID)

    assert guild is not None and guild.name == "Otomo Test"
    assert client.user is not None and client.user.id == BOT_ID
    assert client.application_id == BOT_ID
    assert {c.id for c in guild.text_channels} == {GENERAL_CHANNEL_ID, RANDOM_CHANNEL_ID}
    assert guild.get_thread(THREAD_ID) is not None
    assert {r.name for r in guild.roles} == {"@everyone", "Member", "Admin", "Otomo"}
    assert {m.name for m in guild.members} == {"hana", "taro", "kenji", "Otomo"}
    admin = guild.get_role(ADMIN_ROLE_ID)
    assert admin is not None and admin.permissions.administrator
    assert guild.me.guild_permissions.send_messages
    assert fake.identifies == 1
    identify = await fake.wait_for_gateway_ready()
    assert identify["intents"] == INTENTS.value
    assert fake.requests[0].path == "/users/@me"


# What a bot subprocess does with the DISCORD_API_BASE / DISCORD_GATEWAY_URL settings.
BOT_PROCESS = """
import os, discord, discord.gateway, discord.http, yarl
discord.http.Route.BASE = os.environ["DISCORD_API_BASE"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])
intents = discord.Intents.default()
intents.message_content = True
client = discord.Client(intents=intents, guild_ready_timeout=0.05)

@client.event
async def on_message(message):
    if client.user in message.mentions and message.author != client.user:
        await message.reply("pong")

client.run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


async def test_a_bot_in_another_process_connects_through_the_two_urls(fake: FakeDiscord) -> None:
    env = {
        **os.environ,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DISCORD_TOKEN": fake.token or "",
    }
    bot = await asyncio.create_subprocess_exec(sys.executable, "-c", BOT_PROCESS, env=env)
    try:
        await fake.wait_for_gateway_ready(timeout=20)
        asked = await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "ping", mention_bot=True)
        reply = await fake.wait_for_message(GENERAL_CHANNEL_ID, after=int(asked["id"]))
    finally:
        bot.terminate()
        await bot.wait()

    assert reply["content"] == "pong"
    assert reply["message_reference"]["message_id"] == asked["id"]


async def test_a_wrong_token_fails_login_with_login_failure(fake: FakeDiscord) -> None:
    client = RecordingClient()
    async with client:
        with pytest.raises(discord.LoginFailure):
            await client.login("not-the-token")


async def test_the_client_resumes_after_a_dropped_connection_and_gets_what_it_missed(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    await fake.disconnect_gateway(4000)
    await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "while you were away")

    await fake.wait_until(lambda: fake.resumes == 1, what="a RESUME")
    message = await client.next_message()

    assert message.content == "while you were away"
    assert fake.identifies == 1


async def test_a_session_that_cannot_resume_identifies_again(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    await fake.disconnect_gateway(4000, resumable=False)

    await fake.wait_until(lambda: fake.identifies == 2, what="a second IDENTIFY")
    await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "welcome back")

    assert (await client.next_message()).content == "welcome back"
    assert [op["op"] for op in fake.received_ops].count(6) == 1  # the refused RESUME


# -- messages in and out --------------------------------------------------------------------


async def test_a_message_mentioning_the_bot_reaches_on_message_with_the_bot_in_mentions(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    sent = await fake.send_user_message(
        GENERAL_CHANNEL_ID, HANA_ID, "明日の9時に歯医者", mention_bot=True
    )

    message = await client.next_message()

    assert message.id == int(sent["id"])
    assert message.content == f"<@{BOT_ID}> 明日の9時に歯医者"
    assert client.user in message.mentions
    assert isinstance(message.author, discord.Member)
    assert [r.name for r in message.author.roles] == ["@everyone", "Member"]


async def test_without_the_message_content_intent_guild_messages_arrive_blank(
    fake: FakeDiscord,
) -> None:
    intents = discord.Intents(INTENTS.value)
    intents.message_content = False
    async with running(RecordingClient(intents), fake) as client:
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "secret")
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "hi", mention_bot=True)

        assert (await client.next_message()).content == ""
        assert (await client.next_message()).content == f"<@{BOT_ID}> hi"


async def test_channel_send_records_content_and_allowed_mentions_and_pings_only_allowed_users(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    content = f"<@{HANA_ID}> <@{TARO_ID}> @everyone <@&{ADMIN_ROLE_ID}> 時間です"
    only_hana = discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(HANA_ID)]
    )

    sent = await general(client).send(content, allowed_mentions=only_hana)

    stored = fake.message(sent.id)
    assert stored is not None and stored["content"] == content
    assert stored["allowed_mentions"] == {"parse": [], "users": [HANA_ID], "replied_user": True}
    assert [m["id"] for m in stored["mentions"]] == [str(HANA_ID)]
    assert stored["mention_everyone"] is False and stored["mention_roles"] == []
    assert [m.id for m in sent.mentions] == [HANA_ID]
    assert fake.messages(GENERAL_CHANNEL_ID)[-1]["id"] == str(sent.id)
    assert (await client.next_message()).id == sent.id  # the bot sees its own message


async def test_a_resend_with_the_same_nonce_returns_the_first_message(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    first = await general(client).send("リマインド: 歯医者", nonce="reminder-42")
    again = await general(client).send("リマインド: 歯医者", nonce="reminder-42")

    assert again.id == first.id
    assert len(fake.messages(GENERAL_CHANNEL_ID)) == 1
    posts = [
        r
        for r in fake.requests
        if r.method == "POST" and r.route == "/channels/{channel_id}/messages"
    ]
    assert [r.json["enforce_nonce"] for r in posts] == [True, True]


async def test_a_nonce_is_remembered_for_a_few_minutes_only_as_on_discord() -> None:
    async with FakeDiscord(nonce_window=0.2) as fake:
        restore = point_discord_py_at(fake)
        try:
            async with running(RecordingClient(), fake) as client:
                first = await general(client).send("リマインド", nonce="r1o1")
                await asyncio.sleep(0.3)  # the window passes
                later = await general(client).send("リマインド", nonce="r1o1")
        finally:
            restore()

    assert later.id != first.id
    assert len(fake.messages(GENERAL_CHANNEL_ID)) == 2


async def test_a_held_answer_leaves_the_message_posted_until_released(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    hold = fake.hold_after_accepting(GENERAL_CHANNEL_ID)
    sending = asyncio.create_task(general(client).send("リマインド", nonce="r2o1"))
    held = await hold.wait_accepted(5)

    assert [m["id"] for m in fake.messages(GENERAL_CHANNEL_ID)] == [held["id"]]
    assert not sending.done()  # the client has not heard back
    hold.release()
    sent = await asyncio.wait_for(sending, 5)
    assert sent.id == int(held["id"])
    assert fake.holds == []  # one message held, the next goes through
    again = await general(client).send("リマインド", nonce="r2o1")
    assert again.id == sent.id


async def test_replies_carry_the_referenced_message_and_history_is_newest_first(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    card = await general(client).send("承認しますか？")
    await client.next_message()

    reply = await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "はい", reply_to=card.id)
    message = await client.next_message()

    assert message.reference is not None and message.reference.message_id == card.id
    assert isinstance(message.reference.resolved, discord.Message)
    assert client.user in message.mentions  # a reply pings its author by default
    history = [m.id async for m in general(client).history(limit=5)]
    assert history == [int(reply["id"]), card.id]


async def test_edits_and_deletes_are_recorded_and_dispatched(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    sent = await general(client).send("考え中…")

    await sent.edit(content="答え: 42")
    await sent.delete()

    assert [e["content"] for e in fake.edits(sent.id)] == ["答え: 42"]
    assert fake.deleted[-1]["id"] == str(sent.id) and fake.deleted[-1]["content"] == "答え: 42"
    assert fake.messages(GENERAL_CHANNEL_ID) == []
    events = [e["t"] for e in fake.dispatched]
    assert events[-3:] == ["MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE"]


async def test_files_go_up_as_multipart_and_come_back_from_the_fake_cdn(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    sent = await general(client).send(
        "report", file=discord.File(io.BytesIO(b"hello"), "notes.txt")
    )
    await fake.send_user_message(
        GENERAL_CHANNEL_ID, HANA_ID, "見て", attachments=[("a.md", b"# hi")]
    )

    assert fake.attachment_data(sent.id) == {"notes.txt": b"hello"}
    assert sent.attachments[0].content_type == "text/plain"
    assert await sent.attachments[0].read() == b"hello"
    await client.next_message()  # the bot's own message
    incoming = await client.next_message()
    assert await incoming.attachments[0].read() == b"# hi"


async def test_direct_messages_work_both_ways(fake: FakeDiscord, client: RecordingClient) -> None:
    await fake.send_dm_from_user(HANA_ID, "こんにちは")
    message = await client.next_message()
    await message.channel.send("こんにちは、Hanaさん")
    taro = client.get_user(TARO_ID)
    assert taro is not None
    await taro.send("psst")

    assert message.guild is None and isinstance(message.channel, discord.DMChannel)
    hana_dm = fake.messages(fake.dm_channel_id(HANA_ID))
    assert [m["content"] for m in hana_dm] == ["こんにちは", "こんにちは、Hanaさん"]
    assert [m["content"] for m in fake.messages(fake.dm_channel_id(TARO_ID))] == ["psst"]
    await fake.wait_for_request("POST", "/users/@me/channels")


async def test_a_message_over_2000_characters_is_rejected_as_invalid_form_body(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    with pytest.raises(discord.HTTPException) as raised:
        await general(client).send("あ" * 2001)

    assert raised.value.status == 400 and raised.value.code == 50035
    assert "2000" in raised.value.text
    assert fake.messages(GENERAL_CHANNEL_ID) == []


async def test_unknown_routes_answer_404_and_are_recorded(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    guild = client.get_guild(GUILD_ID)
    assert guild is not None

    with pytest.raises(discord.NotFound):
        await guild.fetch_emojis()

    assert [r.path for r in fake.unknown_requests] == [f"/guilds/{GUILD_ID}/emojis"]


async def test_messages_in_a_thread_arrive_on_the_thread(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    await fake.send_user_message(THREAD_ID, TARO_ID, "スレッドで失礼", mention_bot=True)

    message = await client.next_message()
    await message.reply("どうぞ")

    assert isinstance(message.channel, discord.Thread)
    assert message.channel.parent_id == GENERAL_CHANNEL_ID
    reply = await fake.wait_for_message(THREAD_ID, after=message.id)
    assert reply["message_reference"]["message_id"] == str(message.id)
    assert [m["id"] for m in reply["mentions"]] == [str(TARO_ID)]  # reply pings by default


async def test_typing_reactions_fetches_and_member_queries_are_answered(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    channel = general(client)
    guild = channel.guild

    async with channel.typing():
        sent = await channel.send("👋")
    await sent.add_reaction("✅")
    fetched = await channel.fetch_message(sent.id)
    member = await guild.fetch_member(HANA_ID)
    roles = await guild.fetch_roles()
    queried = await guild.query_members("ta")

    assert fake.typing and fake.typing[0][0] == GENERAL_CHANNEL_ID
    assert fetched.reactions[0].emoji == "✅" and fetched.reactions[0].me
    assert member.name == "hana" and len(roles) == 4
    assert [m.id for m in queried] == [TARO_ID]
    assert fake.failed_requests == []


async def test_a_privileged_intent_not_enabled_in_the_portal_closes_with_4014() -> None:
    async with FakeDiscord(allowed_intents=0) as fake:
        restore = point_discord_py_at(fake)
        try:
            client = RecordingClient()
            async with client:
                await client.login(fake.token or "")
                with pytest.raises(discord.PrivilegedIntentsRequired):
                    await client.connect()
        finally:
            restore()


async def test_waiting_in_vain_fails_with_what_was_seen(fake: FakeDiscord) -> None:
    await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "誰かいる？")

    with pytest.raises(AssertionError, match="誰かいる"):
        await fake.wait_for_message(GENERAL_CHANNEL_ID, timeout=0.05)
    with pytest.raises(AssertionError, match="request POST"):
        await fake.wait_for_request("POST", r"/channels/\d+/messages", timeout=0.05)


# -- faults and rate limits -----------------------------------------------------------------


async def test_discord_py_retries_two_injected_500s_and_then_succeeds(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    fault = fake.inject("POST", r"/channels/\d+/messages", status=500, times=2)

    sent = await general(client).send("eventually")

    assert fault.served == 2
    assert fake.message(sent.id) is not None
    statuses = [r.status for r in fake.requests if r.route == "/channels/{channel_id}/messages"]
    assert statuses == [500, 500, 200]


async def test_discord_py_waits_out_an_injected_429_and_retries(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    fake.inject("POST", r"/channels/\d+/messages", status=429, retry_after=0.2)

    started = time.monotonic()
    await general(client).send("after the limit")

    assert time.monotonic() - started >= 0.2
    assert fake.rate_limit_hits["injected"] == 1
    assert len(fake.messages(GENERAL_CHANNEL_ID)) == 1


async def test_an_injected_403_raises_forbidden_with_code_50001(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    fake.inject("POST", channel_id=GENERAL_CHANNEL_ID, status=403)

    with pytest.raises(discord.Forbidden) as raised:
        await general(client).send("hello")

    assert raised.value.code == 50001 and raised.value.text == "Missing Access"
    random = client.get_channel(RANDOM_CHANNEL_ID)
    assert isinstance(random, discord.TextChannel)
    await random.send("other channels still work")


async def test_the_per_channel_limit_makes_discord_py_wait_between_sends(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    fake.rate_limit_channel_messages(per=2, seconds=1.0)

    started = time.monotonic()
    for n in range(5):
        await general(client).send(f"message {n}")
    elapsed = time.monotonic() - started

    # 2 + 2 + 1 messages: discord.py read the headers and slept out two windows.
    assert elapsed >= 1.9
    assert len(fake.messages(GENERAL_CHANNEL_ID)) == 5
    assert fake.rate_limit_hits["channel"] == 0  # it waited instead of hitting 429s


async def test_exceeding_a_channel_bucket_gets_a_discord_shaped_429(fake: FakeDiscord) -> None:
    fake.rate_limit_channel_messages(per=2, seconds=1.0)
    url = f"{fake.api_base}/channels/{GENERAL_CHANNEL_ID}/messages"
    headers = {"Authorization": f"Bot {fake.token}"}

    async with aiohttp.ClientSession(headers=headers) as http:
        answers = []
        for n in range(3):
            async with http.post(url, json={"content": f"m{n}"}) as response:
                answers.append((response.status, dict(response.headers), await response.json()))

    assert [status for status, _, _ in answers] == [200, 200, 429]
    assert [h["X-RateLimit-Remaining"] for _, h, _ in answers[:2]] == ["1", "0"]
    _, limited, body = answers[2]
    assert limited["Content-Type"] == "application/json"
    assert limited["Via"] and limited["X-RateLimit-Scope"] == "user"
    assert limited["X-RateLimit-Limit"] == "2" and float(limited["X-RateLimit-Reset-After"]) > 0
    assert body["global"] is False and 0 < body["retry_after"] <= 1.0
    assert fake.rate_limit_hits["channel"] == 1


async def test_exceeding_the_global_limit_gets_a_global_429(fake: FakeDiscord) -> None:
    fake.rate_limit_global(per=2, seconds=1.0)
    headers = {"Authorization": f"Bot {fake.token}"}

    async with aiohttp.ClientSession(headers=headers) as http:
        statuses = []
        for _ in range(3):
            async with http.get(f"{fake.api_base}/users/@me") as response:
                statuses.append(response.status)
                last = (dict(response.headers), await response.json())

    assert statuses == [200, 200, 429]
    assert last[0]["X-RateLimit-Global"] == "true" and last[1]["global"] is True
    assert fake.rate_limit_hits["global"] == 1


# -- components and interactions ------------------------------------------------------------


class Confirm(discord.ui.View):
    """A card whose button answers only the clicker."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(timeout=None)
        self.delay = delay
        self.done = asyncio.Event()
        self.error: discord.HTTPException | None = None

    @discord.ui.button(label="OK", custom_id="confirm:ok", style=discord.ButtonStyle.success)
    async def ok(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await asyncio.sleep(self.delay)
        try:
            await interaction.response.send_message("only you can see this", ephemeral=True)
        except discord.HTTPException as exc:
            self.error = exc
        self.done.set()


class ApprovalButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"apv:(?P<id>\d+):(?P<action>\w+)"
):
    """A persistent approve/reject button like the product's approval cards."""

    def __init__(self, request_id: int, action: str) -> None:
        super().__init__(
            discord.ui.Button(label=action.title(), custom_id=f"apv:{request_id}:{action}")
        )
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: Any, /
    ) -> ApprovalButton:
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(
            content=f"{self.action} by {interaction.user.name}", view=None
        )


async def test_a_button_click_reaches_the_view_and_its_ephemeral_reply_is_recorded(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    view = Confirm()
    card = await general(client).send("続けますか？", view=view)

    record = await fake.click_button(card.id, "confirm:ok", HANA_ID)
    response = await record.wait_response()

    assert response["type"] == 4
    assert response["data"]["content"] == "only you can see this"
    assert response["data"]["flags"] == 64
    assert record.response_status == 200  # discord.py asks with_response=1
    await view.done.wait()
    assert view.error is None
    # The ephemeral reply is not part of the channel; the card is.
    assert [m["content"] for m in fake.messages(GENERAL_CHANNEL_ID)] == ["続けますか？"]


async def test_a_dynamic_item_click_is_deferred_and_edits_the_card_in_place(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    client.add_dynamic_items(ApprovalButton)
    view = discord.ui.View(timeout=None)
    view.add_item(ApprovalButton(7, "approve"))
    card = await general(client).send("create_reminder を実行しますか？", view=view)

    record = await fake.click_button(card.id, "apv:7:approve", HANA_ID)

    assert (await record.wait_response())["type"] == 6
    edit = await record.wait_original_edit()
    assert edit["content"] == "approve by hana" and edit["components"] == []
    stored = fake.message(card.id)
    assert stored is not None and stored["content"] == "approve by hana"
    assert fake.edits(card.id) == [edit]


async def test_a_callback_after_the_deadline_gets_unknown_interaction_10062(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    fake.interaction_deadline = 0.2
    view = Confirm(delay=0.4)
    card = await general(client).send("slow", view=view)

    record = await fake.click_button(card.id, "confirm:ok", HANA_ID)
    await asyncio.wait_for(view.done.wait(), 5)

    assert isinstance(view.error, discord.NotFound) and view.error.code == 10062
    assert record.deadline_missed and fake.deadline_misses == [record]
    assert record.response is None


async def test_a_second_callback_gets_already_acknowledged_40060(fake: FakeDiscord) -> None:
    button = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
    card = {"content": "card", "components": [{"type": 1, "components": [button]}]}
    headers = {"Authorization": f"Bot {fake.token}"}

    async with aiohttp.ClientSession(headers=headers) as http:
        async with http.post(
            f"{fake.api_base}/channels/{GENERAL_CHANNEL_ID}/messages", json=card
        ) as r:
            message = await r.json()
        record = await fake.click_button(int(message["id"]), "go")
        callback = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
        statuses = []
        for _ in range(2):
            async with http.post(callback, json={"type": 6}) as response:
                statuses.append((response.status, await response.read()))

    assert statuses[0] == (204, b"")
    assert statuses[1][0] == 400 and b"40060" in statuses[1][1]


# -- application commands and modals --------------------------------------------------------


class NoteModal(discord.ui.Modal, title="New note"):
    """A one-field modal."""

    text: discord.ui.TextInput[NoteModal] = discord.ui.TextInput(
        label="Text", custom_id="note:text"
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"saved: {self.text.value}", ephemeral=True)


def make_bot() -> commands.Bot:
    """A Bot with guild slash commands: /ping, /reminder list, /note (opens a modal)."""
    bot = commands.Bot(command_prefix="!", intents=INTENTS, guild_ready_timeout=READY_DELAY)
    guild = discord.Object(GUILD_ID)

    @bot.tree.command(name="ping", description="Replies pong", guild=guild)
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong")

    reminder = app_commands.Group(name="reminder", description="Reminders")

    @reminder.command(name="list", description="List reminders")
    async def list_reminders(
        interaction: discord.Interaction, count: int, who: discord.Member | None = None
    ) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        name = (who or interaction.user).display_name
        await interaction.followup.send(f"{count} reminders for {name}")

    bot.tree.add_command(reminder, guild=guild)

    @bot.tree.command(name="note", description="Write a note", guild=guild)
    async def note(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NoteModal(custom_id="note"))

    @bot.tree.command(name="weather", description="Forecast for a city", guild=guild)
    async def weather(interaction: discord.Interaction, city: str) -> None:
        await interaction.response.send_message(city)

    @weather.autocomplete("city")
    async def cities(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        names = ("Tokyo", "Osaka", "Kyoto")
        return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n.lower()]

    return bot


async def test_slash_commands_sync_and_run_with_the_synced_ids(fake: FakeDiscord) -> None:
    async with running(make_bot(), fake) as bot:
        synced = await bot.tree.sync(guild=discord.Object(GUILD_ID))
        ids = {c["name"]: c["id"] for c in fake.commands(GUILD_ID)}

        ping = await fake.invoke_slash("ping", user_id=HANA_ID)
        listed = await fake.invoke_slash("reminder list", {"count": 3, "who": TARO_ID})

        assert (await ping.wait_response())["data"]["content"] == "pong"
        followup = await listed.wait_followup()

    assert {c.name: str(c.id) for c in synced} == ids
    assert ping.payload["data"]["id"] == ids["ping"]
    assert fake.messages(GENERAL_CHANNEL_ID)[-1]["content"] == "pong"
    assert followup["content"] == "3 reminders for Taro"
    # The first followup after a deferred reply replaces "thinking..." and stays ephemeral.
    assert listed.response_type == 5
    assert followup["id"] == str(listed.original_message_id) and followup["flags"] & 64


async def test_a_modal_opened_by_a_slash_command_is_submitted_back(fake: FakeDiscord) -> None:
    async with running(make_bot(), fake) as bot:
        await bot.tree.sync(guild=discord.Object(GUILD_ID))

        opened = await fake.invoke_slash("note")
        modal = await opened.wait_response()
        submitted = await fake.submit_modal("note", {"note:text": "牛乳を買う"})
        answer = await submitted.wait_response()

    assert modal["type"] == 9 and modal["data"]["title"] == "New note"
    assert answer["type"] == 4 and answer["data"]["content"] == "saved: 牛乳を買う"


class Picker(discord.ui.View):
    """A select menu that rewrites its message with the choice."""

    @discord.ui.select(
        custom_id="pick:day", options=[discord.SelectOption(label=d) for d in ("月", "火")]
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.edit_message(
            content=f"{select.values[0]}曜日にします", view=None
        )


async def test_a_select_choice_reaches_the_select_and_updates_the_message(
    fake: FakeDiscord, client: RecordingClient
) -> None:
    card = await general(client).send("何曜日？", view=Picker())

    record = await fake.choose_select(card.id, "pick:day", ["火"], TARO_ID)
    response = await record.wait_response()

    assert response["type"] == 7
    stored = fake.message(card.id)
    assert stored is not None and stored["content"] == "火曜日にします"
    assert stored["components"] == [] and stored["edited_timestamp"]
    assert fake.dispatched[-1]["t"] == "MESSAGE_UPDATE"


async def test_autocomplete_gets_the_typed_text_and_answers_choices(fake: FakeDiscord) -> None:
    async with running(make_bot(), fake) as bot:
        await bot.tree.sync(guild=discord.Object(GUILD_ID))

        record = await fake.autocomplete("weather", {"city": "tok"}, focused="city")
        response = await record.wait_response()

    assert response["type"] == 8
    assert response["data"]["choices"] == [{"name": "Tokyo", "value": "Tokyo"}]
    assert record.payload["data"]["options"] == [
        {"name": "city", "type": 3, "value": "tok", "focused": True}
    ]


async def test_interaction_webhooks_need_an_ack_and_a_live_token(fake: FakeDiscord) -> None:
    button = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
    card = {"content": "card", "components": [{"type": 1, "components": [button]}]}
    headers = {"Authorization": f"Bot {fake.token}"}

    async with aiohttp.ClientSession(headers=headers) as http:
        async with http.post(
            f"{fake.api_base}/channels/{GENERAL_CHANNEL_ID}/messages", json=card
        ) as r:
            message = await r.json()
        record = await fake.click_button(int(message["id"]), "go")
        hook = f"{fake.api_base}/webhooks/{BOT_ID}/{record.token}"
        callback = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
        async with http.post(f"{hook}?wait=1", json={"content": "early"}) as r:
            early = (r.status, await r.json())
        async with http.post(callback, json={"type": 6}) as r:
            assert r.status == 204
        async with http.post(f"{hook}?wait=1", json={"content": "later", "flags": 64}) as r:
            followup = await r.json()
        async with http.get(f"{hook}/messages/@original") as r:
            original = await r.json()
        fake.interaction_token_ttl = 0
        async with http.post(f"{hook}?wait=1", json={"content": "too late"}) as r:
            expired = (r.status, await r.json())

    assert early == (404, {"message": "Unknown Webhook", "code": 10015})
    assert followup["content"] == "later" and followup["flags"] == 64
    assert record.followups == [followup]
    assert original["id"] == message["id"]  # after a deferred update, @original is the card
    assert expired == (401, {"message": "Invalid Webhook Token", "code": 50027})


# -- several guilds -------------------------------------------------------------------------


@pytest.fixture
async def two_guilds() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(World.two_guilds()) as fake:
        restore = point_discord_py_at(fake)
        try:
            yield fake
        finally:
            restore()


async def test_each_guild_comes_in_its_own_guild_create_with_its_own_people_and_channels(
    two_guilds: FakeDiscord,
) -> None:
    async with running(RecordingClient(), two_guilds) as client:
        first, second = client.get_guild(GUILD_ID), client.get_guild(SECOND_GUILD_ID)
        assert first is not None and second is not None
        creates = [e["d"]["id"] for e in two_guilds.dispatched if e["t"] == "GUILD_CREATE"]

        assert creates == [str(GUILD_ID), str(SECOND_GUILD_ID)]
        assert second.name == "Otomo Second" and second.owner_id == SECOND_OWNER_ID
        assert {c.id for c in second.text_channels} == {
            SECOND_GENERAL_CHANNEL_ID,
            SECOND_RANDOM_CHANNEL_ID,
        }
        assert {m.id for m in second.members} == {SECOND_OWNER_ID, HANA_ID, SORA_ID, BOT_ID}
        assert first.get_member(SECOND_OWNER_ID) is None
        assert second.get_member(ADMIN_ID) is None
        yuki = second.get_member(SECOND_OWNER_ID)
        assert yuki is not None and yuki.guild_permissions.manage_guild
        # hana is in both, with each guild's own roles.
        hana_first, hana_second = first.get_member(HANA_ID), second.get_member(HANA_ID)
        assert hana_first is not None and hana_second is not None
        assert [r.id for r in hana_second.roles[1:]] == [SECOND_MEMBER_ROLE_ID]
        assert [r.id for r in hana_first.roles[1:]] == [MEMBER_ROLE_ID]


async def test_a_message_in_the_second_guild_carries_that_guild_and_its_member(
    two_guilds: FakeDiscord,
) -> None:
    async with running(RecordingClient(), two_guilds) as client:
        await two_guilds.send_user_message(
            SECOND_GENERAL_CHANNEL_ID, SORA_ID, "こんにちは", mention_bot=True
        )
        message = await client.next_message()

    assert message.guild is not None and message.guild.id == SECOND_GUILD_ID
    assert isinstance(message.author, discord.Member) and message.author.id == SORA_ID
    assert message.channel.id == SECOND_GENERAL_CHANNEL_ID


async def test_slash_commands_run_in_the_guild_of_the_channel_with_that_guilds_member(
    two_guilds: FakeDiscord,
) -> None:
    bot = commands.Bot(command_prefix="!", intents=INTENTS, guild_ready_timeout=READY_DELAY)

    @bot.tree.command(name="whoami", description="Who and where")
    async def whoami(interaction: discord.Interaction) -> None:
        assert isinstance(interaction.user, discord.Member)
        manage = interaction.user.guild_permissions.manage_guild
        await interaction.response.send_message(f"{interaction.guild_id} {manage}")

    async with running(bot, two_guilds):
        await bot.tree.sync()
        there = await two_guilds.invoke_slash(
            "whoami", user_id=SECOND_OWNER_ID, channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        here = await two_guilds.invoke_slash(
            "whoami", user_id=HANA_ID, channel_id=GENERAL_CHANNEL_ID
        )
        there_text = (await there.wait_response())["data"]["content"]
        here_text = (await here.wait_response())["data"]["content"]

    assert there_text == f"{SECOND_GUILD_ID} True"
    assert here_text == f"{GUILD_ID} False"
    with pytest.raises(ValueError, match="not a member"):
        await two_guilds.invoke_slash(
            "whoami", user_id=SECOND_OWNER_ID, channel_id=GENERAL_CHANNEL_ID
        )


async def test_a_command_synced_to_one_guild_cannot_run_in_the_other(
    two_guilds: FakeDiscord,
) -> None:
    async with running(make_bot(), two_guilds) as bot:
        await bot.tree.sync(guild=discord.Object(GUILD_ID))
        with pytest.raises(ValueError, match="synced to guild"):
            await two_guilds.invoke_slash(
                "ping", user_id=SORA_ID, channel_id=SECOND_GENERAL_CHANNEL_ID
            )


async def test_with_two_shards_each_guild_goes_to_its_own_shard(two_guilds: FakeDiscord) -> None:
    seen: dict[int, list[int]] = {}
    for shard_id in (0, 1):
        client = RecordingClient(shard_id=shard_id, shard_count=2)
        async with running(client, two_guilds):
            seen[shard_id] = [g.id for g in client.guilds]

    assert sorted([*seen[0], *seen[1]]) == [GUILD_ID, SECOND_GUILD_ID]
    assert len(seen[0]) == len(seen[1]) == 1
