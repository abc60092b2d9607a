"""Running the CLI on a pseudo-terminal, as a person at a terminal would."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from tests.runner import source_env


def on_tty(*args, cwd, env=None, columns: int = 80) -> tuple[int, str]:
    """Run ``git refocus ARGS`` with stdout and stderr on a pty ``columns`` wide; (exit, output)."""
    leader, follower = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    full = source_env({"COLUMNS": str(columns), "TERM": "xterm", **(env or {})})
    proc = subprocess.Popen([sys.executable, "-m", "gitrefocus", *map(str, args)], cwd=str(cwd), env=full,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(), b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
