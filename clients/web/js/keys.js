// Keyboard shortcuts shared by the pages: a key runs its page's action
// unless the user is typing in a field or pressing a focused button.

/** Whether a key press belongs to a field or a button rather than to the page's shortcuts. */
export function keyBelongsElsewhere(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return true;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("input, select, textarea")) {
    if (event.key === "Escape") target.blur();
    return true;
  }
  // Enter and Space activate a focused button (or tree node): not a shortcut.
  const onButton = target instanceof Element && target.closest("button, [role=button]");
  return Boolean(onButton) && (event.key === "Enter" || event.key === " ");
}

/** Run the action ``actions`` names for the key, if any; whether one ran. */
export function runShortcut(event, actions) {
  const action = actions[event.key];
  if (!action) return false;
  event.preventDefault();
  action();
  return true;
}
