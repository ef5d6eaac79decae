"""Guard a child Python process against network access when OTOMO_NETGUARD=1.

Python imports ``sitecustomize`` at start-up from ``sys.path``; tests put this directory on the
child's PYTHONPATH (``netguard.child_env()``) so ``python -m bot run`` is guarded like the tests.
Each refused attempt is printed to stderr with the ``NETGUARD-BLOCKED`` marker.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def _install_guard() -> None:
    """Load ../netguard.py by path (the child may not have the repo on sys.path) and install it."""
    path = Path(__file__).resolve().parent.parent / "netguard.py"
    spec = importlib.util.spec_from_file_location("otomo_netguard", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"netguard not found at {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before exec: dataclasses look their module up in sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    module.install(reporter=module.report_to_stderr)


if os.environ.get("OTOMO_NETGUARD") == "1":
    _install_guard()
