"""docs/configuration.md lists every setting of `.env.example`, so the reference cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

from dotenv import dotenv_values

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_of_env_example_has_a_row_in_the_configuration_reference() -> None:
    settings = set(dotenv_values(ROOT / ".env.example"))
    reference = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", reference, re.MULTILINE))

    assert sorted(settings - rows) == [], "add these settings to docs/configuration.md"
    assert sorted(rows - settings) == [], "these rows name settings .env.example does not have"
