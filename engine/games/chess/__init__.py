"""Chess: bitboard move generation, FEN/UCI/SAN notation and a tapered evaluation.

Modules: :mod:`.bitboards` (squares and constant attack tables),
:mod:`.position` (positions, legal move generation, making moves),
:mod:`.notation` (FEN, UCI, SAN), :mod:`.evaluation` (material and
piece-square tables) and :mod:`.game` (the :class:`Chess` game and its
search hooks).
"""

from engine.games.chess.game import Chess

__all__ = ["Chess"]
