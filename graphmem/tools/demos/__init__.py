"""Demos: doors that play a short scene on the real code and print what happens.

- :mod:`graphmem.tools.demos.policy`: a rolling-summary conversation whose summarizer service
  goes down and recovers (``graphmem demo --policy``, or ``python -m graphmem.tools.demos.policy``).

A demo is a door like the CLI: it may use the package's face (``import graphmem``);
nothing in the library imports a demo.
"""
