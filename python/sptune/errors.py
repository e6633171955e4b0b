"""The one exception type the command line turns into a message."""


class SptuneError(Exception):
    """A user-facing error (bad input, a tool that failed): `python3 -m
    sptune` prints it as one message and exits with status 1, without a
    traceback."""
