"""deploy/otomo.service: a unit systemd accepts, restarting only when a restart can help."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.start_failures import TRANSIENT, ExitCode

PROJECT = Path(__file__).resolve().parents[2]
UNIT = PROJECT / "deploy" / "otomo.service"
INSTALLED_AT = "/opt/otomo"


def _setting(name: str) -> str:
    (line,) = [line for line in UNIT.read_text().splitlines() if line.startswith(f"{name}=")]
    return line.split("=", 1)[1]


def test_systemd_analyze_verifies_the_unit_installed_at_this_checkout(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI") == "true":
            pytest.fail("systemd-analyze is missing: .ci/run installs the systemd package")
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    # The unit names /opt/otomo; verify checks that ExecStart exists, so point it here.
    venv_python = Path(sys.executable)
    rendered = UNIT.read_text().replace(INSTALLED_AT, str(PROJECT))
    rendered = rendered.replace(f"{PROJECT}/.venv/bin/python", str(venv_python))
    unit = tmp_path / "otomo.service"
    unit.write_text(rendered)

    result = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )

    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if "otomo.service" in line] == []


def test_the_unit_runs_the_bot_as_make_run_does() -> None:
    assert _setting("ExecStart") == f"{INSTALLED_AT}/.venv/bin/python -m bot run"
    assert _setting("WorkingDirectory") == INSTALLED_AT  # where .env is read
    assert _setting("Restart") == "on-failure"


def test_the_unit_does_not_restart_after_a_setting_that_is_wrong() -> None:
    prevented = {int(code) for code in _setting("RestartPreventExitStatus").split()}
    configuration = {code for code in ExitCode if code not in TRANSIENT and code not in {0, 130}}

    assert prevented == configuration
