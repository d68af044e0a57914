"""A sweep's plan in memory that does not follow the run count: `Plan`.

Planning resolves and checks every run of a sweep before anything runs (a bad value is named
before the first simulation) and keeps only each run's key, 16 bytes, with the keys sorted (to
find repeated runs and stored ones) and two flag bytes a run: a sweep of 1,000,000 runs holds
about 42 MB of plan (161 MiB peak resident for `tcplab check`, docs/limits.md) where the list
of resolved runs (`Sweep.runs`) held 8 GB. The runs to do are resolved again, one at a time, as they are handed
to the workers (`Plan.todo`), in the order of `Sweep.runs`, with the same keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tcplab.sweep.plan import Run, Sweep

#: A run key (the first 128 bits of SHA-256, `run_key`) as 16 raw bytes.
KEY = np.dtype((np.void, 16))


def _digests(keys: Iterable[str]) -> np.ndarray:
    """Keys as raw bytes; anything that is not a key (32 hex digits) is left out."""
    buf = bytearray()
    for key in keys:
        if len(key) == 32:
            try:
                buf += bytes.fromhex(key)
            except ValueError:
                continue
    return np.frombuffer(buf, dtype=KEY)


class Plan:
    """Every run of `sweep` resolved, checked and keyed once (a `SweepError` names the first
    bad one); kept: the keys, which runs are first occurrences (runs that resolve to the same
    scenario count once) and which are already stored (`skip`).

        plan = sweep.plan()
        plan.skip(store.keys())
        for run in plan.todo(): ...
    """

    def __init__(self, sweep: Sweep):
        self.sweep = sweep
        buf = bytearray()
        for point, seed in sweep.candidates():
            buf += bytes.fromhex(sweep.resolve_run(point, seed).key)
        self._keys = np.frombuffer(buf, dtype=KEY)  # one per candidate, in sweep order
        # The distinct keys, sorted, and the index of each one's first occurrence (a stable sort).
        self._sorted, self._first_at = np.unique(self._keys, return_index=True)
        self._first = np.zeros(len(self._keys), dtype=bool)
        self._first[self._first_at] = True
        self._todo = self._first.copy()
        #: Distinct runs; of them, already in the store (`skip`).
        self.total = len(self._first_at)
        self.stored = 0

    @property
    def todo_count(self) -> int:
        return self.total - self.stored

    def skip(self, stored: Iterable[str]) -> None:
        """Leaves out of `todo` the runs whose key is in `stored` (a store's keys; others
        are ignored)."""
        given = _digests(stored)
        if not len(given) or not self.total:
            return
        at = np.minimum(np.searchsorted(self._sorted, given), self.total - 1)
        found = self._sorted[at] == given
        self._todo[self._first_at[at[found]]] = False
        self.stored = self.total - int(np.count_nonzero(self._todo))

    def keys(self) -> Iterator[str]:
        """The distinct runs' keys, in sweep order."""
        for i in np.flatnonzero(self._first):
            yield self._keys[i].tobytes().hex()

    def todo(self) -> Iterator[Run]:
        """The runs not stored, resolved again one at a time, in sweep order; `Run.index` is the
        run's place among the distinct runs (as in `Sweep.runs`)."""
        index = -1
        for i, (point, seed) in enumerate(self.sweep.candidates()):
            if self._first[i]:
                index += 1
            if self._todo[i]:
                yield self.sweep.resolve_run(point, seed, index)
