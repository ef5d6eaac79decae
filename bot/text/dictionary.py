"""A smaller janome dictionary in memory: the same numbers in typed arrays instead of int lists.

janome's memory-mapped dictionary (its default on 64-bit) still keeps two big tables as lists of
Python ints: the connection-cost matrix (1,316 x 1,316, ~1.7 M ints) and the byte offsets of the
mapped entries (~0.8 M ints), and it keeps the base64 text its FST was decoded from. Together that
is ~35 MB of the tokenizer's ~77 MB. Arrays hold the same values, index the same way, and give the
same tokens; anything shaped unlike janome 0.5 is left as it is.
"""

from __future__ import annotations

import logging
import sys
from array import array
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)

# Modules whose data janome has copied elsewhere by the time a tokenizer exists; a later
# Tokenizer() imports them again.
_SPENT_MODULES = ("connections1", "connections2", "fst_data0", "fst_data1")
_SYSDIC = "janome.sysdic"


def _typed(values: Sequence[int], typecodes: str) -> array[int]:
    """The values in the narrowest of the typecodes that holds them all."""
    for code in typecodes[:-1]:
        try:
            return array(code, values)
        except OverflowError:
            continue
    return array(typecodes[-1], values)


def compact(tokenizer: Any) -> bool:
    """Replace the tokenizer's int-list tables with arrays; True if it was done."""
    dictionary: Any = getattr(tokenizer, "sys_dic", None)
    costs = getattr(dictionary, "connections", None)
    parts: list[Any] = [
        getattr(dictionary, name, None) for name in ("entries_compact", "entries_extra")
    ]
    if not isinstance(costs, list) or not all(isinstance(part, dict) for part in parts):
        log.debug("janome dictionary not in the expected shape; left as it is")
        return False
    if costs and isinstance(costs[0], array):
        return True  # already done (one dictionary per process, shared by every tokenizer)
    rows = [_typed(row, "hi") for row in costs]
    dictionary.connections = rows
    # The same list is a global of three janome modules: all must let go of it.
    for name in (_SYSDIC, "janome.system_dic", "janome.tokenizer"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "connections", None) is costs:
            setattr(module, "connections", rows)  # noqa: B010 (a module global, untyped)
    for part in parts:
        for _, index in part.values():
            index["positions"] = _typed(index["positions"], "IL")
    package = sys.modules.get(_SYSDIC)
    for name in _SPENT_MODULES:
        sys.modules.pop(f"{_SYSDIC}.{name}", None)
        if package is not None and hasattr(package, name):
            delattr(package, name)
    return True
