"""The one exception that means the user's input is wrong (not a bug in littlegrid)."""


class UserError(Exception):
    """A user mistake: bad file, bad grid, missing tool. Its message is one line, `where: problem`.

    `cli.main` prints it on stderr and exits 2; everything else that escapes is a bug and keeps its traceback.
    """

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))  # one line, always


def at(path, line, problem) -> UserError:
    """`path:line: problem` (line may be None)."""
    where = f"{path}:{line}" if line is not None else f"{path}"
    return UserError(f"{where}: {problem}")
