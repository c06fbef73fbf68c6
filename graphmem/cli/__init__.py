"""The ``graphmem`` command line: the program that composes the doors and the tools.

:func:`main` is the ``graphmem`` console script; :mod:`graphmem.cli.program` holds the
program and :mod:`graphmem.cli.commands` the verbs that write, serve and retrieve.
"""

from graphmem.cli.program import main

__all__ = ["main"]
