// Keeps the keyboard focus on the page when the control that had it goes
// away: a button that disables itself (Analyse while it searches, ‹ at the
// start of the moves, » at the last step) or one a redraw replaces (Check
// and Skip of a question). The browser then puts the focus on <body>: no
// ring, nothing for a screen reader to follow, and the next Tab starts from
// the top (a review of 2026-12-07).

let last = null;
// The closest [data-focus-home] of the control that last had the focus (the
// board, say): a rescue can return there when the control itself is gone.
let lastHome = null;
// When the focus last left a control for nothing (<body>): a rescue is for
// a loss just now, not for a control disabled long after the person moved
// on (clicked the board, say), which must not pull the focus back.
let lostAt = -Infinity;
const RESCUE_WITHIN_MS = 1000;

// Remembers the control that last had the focus (call once per page).
export function watchFocus() {
  document.addEventListener("focusin", (event) => {
    last = event.target;
    lastHome = event.target instanceof Element ? event.target.closest("[data-focus-home]") : null;
  });
  document.addEventListener("focusout", (event) => {
    if (event.target === last && event.relatedTarget === null) lostAt = performance.now();
  });
}

// If the focus fell to <body> because the control that had it is disabled,
// hidden or gone: an enabled control of the same group (the buttons around
// it), else `fallback` (an element, or a function giving one; it is given the
// [data-focus-home] area the lost control was in, or null).
export function rescueFocus(fallback) {
  // A control just disabled may still be the active element until the
  // browser's next focus fix-up, which then moves the focus to <body>.
  const active = document.activeElement;
  if (active && active !== document.body && !active.disabled) return;
  if (active && active.disabled) last = active;
  else if (performance.now() - lostAt > RESCUE_WITHIN_MS) return;
  if (!last || (last.isConnected && !last.disabled && !last.closest("[hidden]"))) return;
  const usable = (element) => element && element.isConnected && !element.disabled && !element.closest("[hidden]") && element.offsetParent !== null;
  const group = last.isConnected ? last.closest(".buttons, [role=group], .predict-input") : null;
  const near = group ? [...group.querySelectorAll("button, input, select, [tabindex]")].find(usable) : null;
  const target = near || (typeof fallback === "function" ? fallback(lastHome && lastHome.isConnected ? lastHome : null) : fallback);
  if (usable(target)) {
    if (target.tabIndex < 0 && !target.hasAttribute("tabindex")) target.tabIndex = -1;
    target.focus({ preventScroll: true });
  }
}
