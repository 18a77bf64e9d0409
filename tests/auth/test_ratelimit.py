"""Brute-force limiter (contract §8: 10 failures / 5 min per client ID)."""

from __future__ import annotations

from vigil.auth.ratelimit import FailureLimiter, MemoryFailureStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_blocks_after_ten_then_window_passes() -> None:
    clock = Clock()
    limiter = FailureLimiter(clock=clock)
    for _ in range(9):
        limiter.record_failure(["a"])
        clock.now += 1
    assert limiter.retry_after(["a"]) is None
    limiter.record_failure(["a"])
    # first failure at t=1000, window 300 s, now t=1009 -> free at 1300
    assert limiter.retry_after(["a"]) == 291
    assert limiter.retry_after(["b"]) is None  # other clients unaffected
    clock.now = 1300.5
    assert limiter.retry_after(["a"]) is None


def test_memory_bounded() -> None:
    limiter = FailureLimiter(max_keys=50)
    for i in range(500):
        limiter.record_failure([f"id{i}"])
    assert isinstance(limiter.store, MemoryFailureStore) and len(limiter.store) <= 50
