// The pages' languages: picks one (the address's ?lang=, else the last one
// chosen here, else the browser's), looks texts up in the translation
// tables (strings.js) and fills the static page: an element with
// data-i18n="key" gets the text, data-i18n-title, data-i18n-aria-label and
// data-i18n-placeholder the attributes. Every text a page shows comes from
// the tables, so a missing key shows as the key itself (and the browser
// test that compares the tables fails).

import { STRINGS } from "./strings.js";

export const LANGUAGES = ["en", "pt"];
const STORAGE_KEY = "arena-lang";
const listeners = [];
let current = pickLanguage();

function pickLanguage() {
  const asked = new URLSearchParams(window.location.search).get("lang");
  if (asked && LANGUAGES.includes(asked)) return asked;
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored && LANGUAGES.includes(stored)) return stored;
  } catch {
    // storage refused (private mode): the browser's language decides
  }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export function language() {
  return current;
}

// The text of `key` in the current language, with {name} replaced from
// `params`; a table entry may be a function of the params (plurals).
export function t(key, params = {}) {
  const entry = STRINGS[current][key] ?? STRINGS.en[key];
  if (entry === undefined) return key;
  const text = typeof entry === "function" ? entry(params) : entry;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// The decimal mark of each language: "0.29 s" in English, "0,29 s" in Portuguese.
const DECIMAL_MARKS = { en: ".", pt: "," };

// `value` with `digits` decimals, written with the current language's mark.
export function decimal(value, digits) {
  return localNumber(Number(value).toFixed(digits));
}

// A number already written with a point ("+12.5 ± 3.1") in the current language's mark.
export function localNumber(text) {
  const mark = DECIMAL_MARKS[current] || ".";
  return mark === "." ? String(text) : String(text).replace(/(\d)\.(\d)/g, `$1${mark}$2`);
}

// Whether the current language has `key` (for optional texts).
export function has(key) {
  return key in STRINGS[current] || key in STRINGS.en;
}

// A player's name for display: "White", "Player 0" for games that number
// their players, in the page's language where the tables name the player;
// any other name (a tournament's engine or bot) as it was given: the live
// page's replay said "Greedy to roll" for the bot "greedy" (a review,
// 2026-12-07).
export function playerTitle(name) {
  const text = String(name);
  if (/^\d+$/.test(text)) return t("play.player", { number: text });
  const key = `player.${text.toLowerCase()}`;
  if (has(key)) return t(key);
  return text;
}

// Fills the static texts under `root` from the tables.
export function applyStatic(root = document) {
  document.documentElement.lang = current;
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-html]")) node.innerHTML = t(node.dataset.i18nHtml);
  for (const [attribute, data] of [["title", "i18nTitle"], ["aria-label", "i18nAriaLabel"], ["placeholder", "i18nPlaceholder"]]) {
    for (const node of root.querySelectorAll(`[data-${attribute === "aria-label" ? "i18n-aria-label" : `i18n-${attribute}`}]`)) {
      node.setAttribute(attribute, t(node.dataset[data]));
    }
  }
  if (document.title && document.body?.dataset.i18nPageTitle) document.title = t(document.body.dataset.i18nPageTitle);
}

// Switches the language, keeps the choice, refills the page and tells the
// page's own code (which redraws what it built).
export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang) || lang === current) return;
  current = lang;
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // not kept: fine
  }
  const url = new URL(window.location.href);
  if (url.searchParams.has("lang")) {
    url.searchParams.set("lang", lang);
    window.history.replaceState(null, "", url);
  }
  applyStatic();
  for (const listener of listeners) listener(lang);
}

export function onLanguageChange(listener) {
  listeners.push(listener);
}

// The language menu of a page (a <select id=...>), wired.
export function wireLanguageMenu(select) {
  select.replaceChildren(...LANGUAGES.map((lang) => new Option(t(`lang.${lang}`), lang)));
  select.value = current;
  select.addEventListener("change", () => setLanguage(select.value));
  onLanguageChange(() => {
    for (const option of select.options) option.textContent = t(`lang.${option.value}`);
    select.value = current;
  });
}
