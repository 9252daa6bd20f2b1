"""Files written whole or not at all: a temporary file beside the target, renamed over it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from littlegrid.usererror import UserError


def write_atomic(path: Path, content: str | bytes, what: str = "") -> Path:
    """Write `content` (text as UTF-8) to `path` through a temporary file in the same folder, so a reader (a
    CI tool, a browser, the next stage) never sees half a file and a failure keeps the previous one. The
    folder is made if missing. An OS error is a UserError naming the file (and `what` it was)."""
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    def refusal(e: OSError) -> UserError:
        reason = e.strerror or str(e)
        return UserError(f"{path}: cannot write {what} ({reason})" if what else f"{path}: cannot write: {reason}")

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise refusal(e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # a manifest must survive the runner being killed right after the rename
        os.chmod(tmp, 0o644)  # mkstemp makes it private; CI tools and web servers running as others must read it
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise refusal(e) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
