"""A dependency-free progress display: a carriage-return bar on a terminal, plain lines
every ``total // lines`` updates otherwise (logs, CI, pipes)."""

from __future__ import annotations

from typing import TextIO


class Progress:
    def __init__(self, total: int, out: TextIO, width: int = 30, lines: int = 10) -> None:
        self.total, self.out, self.width = total, out, width
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.every = max(1, total // lines)

    def update(self, done: int, text: str) -> None:
        """Report ``done`` of ``total`` finished, with a short status ``text``."""
        if self.tty:
            filled = self.width * done // max(self.total, 1)
            bar = "#" * filled + "-" * (self.width - filled)
            end = "\n" if done == self.total else ""
            self.out.write(f"\r  [{bar}] {done:>{len(str(self.total))}}/{self.total}  {text}{end}")
            self.out.flush()
        elif done % self.every == 0 or done == self.total:
            print(f"  {done:>{len(str(self.total))}}/{self.total}  {text}", file=self.out, flush=True)
