"""Tournaments between engines that speak the protocol (``arena tournament``).

A referee (:mod:`~clients.tournament.referee`) plays each game between two
engine servers, keeping the clocks and the authoritative position, and
judges faults; the runner (:mod:`~clients.tournament.runner`) schedules
round-robins or gauntlets with paired openings, several games at once,
stores every game in SQLite as it ends (:mod:`~clients.tournament.store`,
resumable after any interruption), writes JSON Lines and PGN records
(:mod:`~clients.tournament.records`) and rates the engines
(:mod:`~clients.tournament.stats`: Elo, error bars, LOS, pentanomial, SPRT).
Pure logic (clocks, adjudication, scheduling, statistics) has no I/O.
"""
