"""Sleep episodes of many crew members as flat arrays (CSR by crew member).

:class:`SleepArrays` is what the scorer's sleep step hands the layout: predicted sleep
(:func:`vigil.model.sleep.predict_packed`) and given SleepData
(:mod:`vigil.scoring.sleep_given`) in one form; :class:`EpisodeRows` shows one crew
member's rows as :class:`~vigil.scoring.grid.SleepEpisode` objects, built on first read
(the reports' ``sleep`` lists).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from vigil.model.sleep import KIND_INFLIGHT, KIND_MAIN, KIND_NAP
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, IntArray

__all__ = ["KIND_NAMES", "EpisodeRows", "SleepArrays"]

BoolArray = npt.NDArray[np.bool_]


#: Episode kinds of :class:`SleepArrays` (the sleep predictor's codes) and their names.
KIND_NAMES = ("main", "nap", "inflight")
assert (KIND_MAIN, KIND_NAP, KIND_INFLIGHT) == (0, 1, 2)


@dataclass(frozen=True, slots=True)
class SleepArrays:
    """Sleep episodes of ``n`` crew members as CSR arrays (``ptr``: ``n + 1``).

    Crew member ``i``'s episodes are rows ``ptr[i]:ptr[i + 1]``, sorted [epoch h].
    """

    ptr: IntArray
    start: FloatArray
    end: FloatArray
    quality: FloatArray
    kind: IntArray  #: index into :data:`KIND_NAMES`
    given: BoolArray  #: from SleepData (else predicted)

    def slice(self, lo: int, hi: int) -> SleepArrays:
        """Crew members ``lo:hi``."""
        a, b = int(self.ptr[lo]), int(self.ptr[hi])
        return SleepArrays(
            self.ptr[lo : hi + 1] - a,
            self.start[a:b],
            self.end[a:b],
            self.quality[a:b],
            self.kind[a:b],
            self.given[a:b],
        )

    def episodes(self) -> list[list[grid.SleepEpisode]]:
        """Each crew member's episodes as :class:`~vigil.scoring.grid.SleepEpisode` objects."""
        return [list(self.rows(i)) for i in range(self.ptr.size - 1)]

    def rows(self, i: int) -> EpisodeRows:
        """Crew member ``i``'s episodes, made into objects only when read."""
        return EpisodeRows(self, int(self.ptr[i]), int(self.ptr[i + 1]))

    @classmethod
    def merge(cls, n: int, parts: Sequence[tuple[IntArray, SleepArrays]]) -> SleepArrays:
        """Episodes of ``n`` crew members from parts, each for the crew members it lists."""
        if len(parts) == 1 and np.array_equal(parts[0][0], np.arange(n)):
            return parts[0][1]  # one part holding everyone in order
        owner = np.concatenate(
            [np.repeat(crew, np.diff(part.ptr)) for crew, part in parts] + [np.zeros(0, np.int64)]
        )
        order = np.argsort(owner, kind="stable")
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=n), out=ptr[1:])

        def joined(name: str) -> npt.NDArray[Any]:
            values = [getattr(part, name) for _, part in parts]
            return np.concatenate(values)[order] if values else np.zeros(0)

        return cls(
            ptr,
            joined("start").astype(np.float64),
            joined("end").astype(np.float64),
            joined("quality").astype(np.float64),
            joined("kind").astype(np.int64),
            joined("given").astype(np.bool_),
        )

    @classmethod
    def of(cls, episodes: Sequence[Sequence[grid.SleepEpisode]]) -> SleepArrays:
        """From episode objects, one list per crew member."""
        flat = [e for per_crew in episodes for e in per_crew]
        return cls(
            np.concatenate([[0], np.cumsum([len(e) for e in episodes])]).astype(np.int64),
            np.array([e.start for e in flat], dtype=np.float64),
            np.array([e.end for e in flat], dtype=np.float64),
            np.array([e.quality for e in flat], dtype=np.float64),
            np.array([KIND_NAMES.index(e.kind) for e in flat], dtype=np.int64),
            np.array([e.source == "given" for e in flat], dtype=bool),
        )


class EpisodeRows(Sequence[grid.SleepEpisode]):
    """Rows ``lo:hi`` of :class:`SleepArrays` as a sequence of episodes, built on first read.

    Most responses never show sleep; a 10,000-crew month has 600,000 episodes.
    """

    __slots__ = ("_arrays", "_hi", "_lo", "_made")

    def __init__(self, arrays: SleepArrays, lo: int, hi: int) -> None:
        self._arrays, self._lo, self._hi = arrays, lo, hi
        self._made: tuple[grid.SleepEpisode, ...] | None = None

    def _episodes(self) -> tuple[grid.SleepEpisode, ...]:
        if self._made is None:
            a, lo, hi = self._arrays, self._lo, self._hi
            sources = ("predicted", "given")
            self._made = tuple(
                grid.SleepEpisode(s, e, q, sources[g], KIND_NAMES[k])
                for s, e, q, k, g in zip(
                    a.start[lo:hi].tolist(), a.end[lo:hi].tolist(),
                    a.quality[lo:hi].tolist(), a.kind[lo:hi].tolist(),
                    a.given[lo:hi].tolist(), strict=True,
                )
            )  # fmt: skip
        return self._made

    def __len__(self) -> int:
        return self._hi - self._lo

    @overload
    def __getitem__(self, index: int) -> grid.SleepEpisode: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[grid.SleepEpisode, ...]: ...
    def __getitem__(self, index: int | slice) -> grid.SleepEpisode | tuple[grid.SleepEpisode, ...]:
        return self._episodes()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return self._episodes() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._episodes())
