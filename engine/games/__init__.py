"""One module per game; each registers in :mod:`engine.registry`."""
