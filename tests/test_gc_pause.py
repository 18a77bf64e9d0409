"""The cyclic collector's pause (vigil.gc_pause): one switch for the process, shared by
threads whose pauses overlap."""

from __future__ import annotations

import gc
import threading

import pytest

from vigil.gc_pause import cyclic_gc_paused


def test_a_pause_restores_the_collector_also_when_the_block_raises() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), cyclic_gc_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_an_overlapping_pause_on_another_thread_does_not_end_this_one() -> None:
    """The kernel warm-up's pause began first and ends first: this thread's block must stay
    paused until it ends (the collector came back on inside it before)."""
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with cyclic_gc_paused():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert entered.wait(10)
    with cyclic_gc_paused():
        leave.set()
        thread.join(10)
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
