"""Draft exploration."""
from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.clock import ManualClock
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, GUILD_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e
TOKYO = ZoneInfo("Asia/Tokyo")


def evening_ahead() -> datetime:
    day = datetime.now(TOKYO).date() + timedelta(days=60)
    return datetime.combine(day, time(20, 0), tzinfo=TOKYO).astimezone(UTC)


async def test_draft(tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM) -> None:
    clock = ManualClock(evening_ahead())
    tomorrow = (clock.now().astimezone(TOKYO) + timedelta(days=1)).date()
    llm.queue(tool_call("create_reminder", {"when": f"{tomorrow}T09:00", "what": "歯医者"}),
              text("登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock, DEV_GUILD_ID=GUILD_ID) as otomo:
        sent = await otomo.mention("明日の9時に歯医者ってリマインドして")
        card = await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "apv:" in json.dumps(m.get("components")), after=int(sent["id"]))
        print(json.dumps(card, ensure_ascii=False, indent=1))
        cid = next(c["custom_id"] for row in card["components"] for c in row["components"] if c["custom_id"].endswith(":approve"))
        rec = await fake.click_button(int(card["id"]), cid, HANA_ID)
        await rec.wait_response()
        await otomo.idle()
        print(llm.last_request.messages[-1])
        print(otomo.app.reminders.armed_at)
        clock.set(datetime.combine(tomorrow, time(9), tzinfo=TOKYO))
        print(await otomo.app.reminders.run_due())
        m = fake.messages(GENERAL_CHANNEL_ID)[-1]
        print(json.dumps(m, ensure_ascii=False, indent=1))
        print([str(r) for r in fake.requests][-10:])
