"""A sweep's progress: a rich bar on a terminal, plain lines in logs and pipes."""

from __future__ import annotations


class PlainProgress:
    """Progress as plain lines on stderr (for logs and pipes, where a bar would be noise): one
    line at most every `every` seconds, and one at the end."""

    task_ids = [0]

    def __init__(self, name: str, total: int, skipped: int, every: float = 10.0):
        import time

        self.name, self.total, self.skipped, self.every = name, total, skipped, every
        self.done = 0
        self.clock = time.monotonic
        self.t0 = self.last = self.clock()

    def _line(self) -> None:
        import sys

        elapsed = self.clock() - self.t0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = f", ETA {(self.total - self.done) / rate:.0f} s" if rate > 0 and self.done < self.total else ""
        stored = f" ({self.skipped} already stored)" if self.skipped else ""
        print(
            f"{self.name}{stored}: {self.done}/{self.total} runs, {elapsed:.0f} s, {rate:.2f} runs/s{eta}",
            file=sys.stderr,
            flush=True,
        )

    def start(self) -> None:
        self._line()

    def advance(self, task_id: int) -> None:
        self.done += 1
        if self.clock() - self.last >= self.every:
            self.last = self.clock()
            self._line()

    def stop(self) -> None:
        self._line()


def progress_bar(name: str, total: int, skipped: int):
    import sys

    if not sys.stderr.isatty():
        return PlainProgress(name, total, skipped)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.2f} runs/s" if speed else "- runs/s", style="progress.data.speed")

    label = name + (f" ({skipped} already stored)" if skipped else "")
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    bar.add_task(label, total=total)
    return bar
