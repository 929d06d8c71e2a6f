// The board of a game without its own module: the position in the game's
// notation and one button per legal move. Every game is playable this way.

import { t } from "../i18n.js";

export default function create(container, hooks) {
  return {
    update(view) {
      container.replaceChildren();
      const position = document.createElement("pre");
      position.className = "generic-position";
      position.textContent = view.state.position || t("board.initial");
      const moves = document.createElement("div");
      moves.className = "generic-moves";
      for (const move of view.state.legal_moves) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = move;
        button.dataset.move = move;
        button.disabled = !view.interactive;
        button.addEventListener("click", () => hooks.play(move));
        moves.append(button);
      }
      container.append(position, moves);
    },
  };
}
