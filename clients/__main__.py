"""``python -m clients``: the same as the ``arena`` command."""

from clients.cli import main

raise SystemExit(main())
