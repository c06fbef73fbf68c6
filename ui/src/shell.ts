// What every view shares with the shell: the status line and moving between views.
import { h } from "./dom";

export const status = h("p", { id: "status", role: "status", aria: { live: "polite" } });

export function say(text: string, kind: "info" | "error" = "info"): void {
  status.textContent = text;
  status.className = kind;
}

/** Show a view (`world`, `npc`, `conversations`, `recall`, `facts`), optionally on one item. */
export function go(id: string, arg?: string): void {
  const hash = arg ? `#${id}/${encodeURIComponent(arg)}` : `#${id}`;
  if (window.location.hash !== hash) window.history.pushState(null, "", hash);
  window.dispatchEvent(new Event("inspector:route"));
}

/** A link-like button to another view. */
export function link(text: string, view: string, arg?: string): HTMLButtonElement {
  return h("button", { class: "link", type: "button", onclick: () => go(view, arg) }, text);
}
