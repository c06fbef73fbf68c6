"""``python -m graphmem``: the same as the ``graphmem`` command."""

from graphmem.cli.program import main

raise SystemExit(main())
