"""The typed per-process state of a surface (vigil.web.runtime_state)."""

from __future__ import annotations

import dataclasses
import threading

from vigil.store.operator_settings import BUILT_IN
from vigil.web.runtime_state import REFERENCE_CACHE_SIZE, RecentMap, RuntimeState


def test_recent_map_keeps_the_most_recently_used() -> None:
    known: RecentMap[str, int] = RecentMap(2)
    known.put("a", 1)
    known.put("b", 2)
    assert known.get("a") == 1  # "a" is now the most recent
    known.put("c", 3)  # evicts "b", the least recently used
    assert (known.get("a"), known.get("b"), known.get("c")) == (1, None, 3)
    assert len(known) == 2


def test_recent_map_is_safe_to_share_between_threads() -> None:
    known: RecentMap[int, int] = RecentMap(64)

    def work(offset: int) -> None:
        for i in range(2000):
            known.put((offset + i) % 100, i)
            known.get((offset + 7 * i) % 100)

    threads = [threading.Thread(target=work, args=(k * 13,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(known) == 64


def test_each_runtime_has_its_own_state() -> None:
    one, two = RuntimeState(), RuntimeState()
    one.operator_settings["op"] = (None, BUILT_IN)
    one.whatif_references.put("token", frozenset({"P1"}))
    assert two.operator_settings == {} and two.whatif_references.get("token") is None
    assert one.whatif_references.size == REFERENCE_CACHE_SIZE
    assert one.calibration_reports is not two.calibration_reports


def test_every_field_is_typed_and_documented_in_the_module() -> None:
    # one field per thing kept; the module docstring's table names each (no untyped bag)
    import vigil.web.runtime_state as module

    names = [f.name for f in dataclasses.fields(RuntimeState)]
    assert all(f.type not in ("Any", "object") for f in dataclasses.fields(RuntimeState))
    assert [n for n in names if f"\n{n} " not in (module.__doc__ or "")] == []
