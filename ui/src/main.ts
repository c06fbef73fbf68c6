// The inspector's shell: the key, the tabs (Alt+1..5), the status line; each view in its module.
import { ApiError, api, clearNames, currentKey, need, onApiError, setKey } from "./api";
import { clear, h } from "./dom";
import { conversationsView } from "./conversations";
import { factsView } from "./facts";
import { npcView } from "./npc";
import { recallView } from "./recall";
import { go, say, status } from "./shell";
import { worldView } from "./world";

export interface View {
  id: string;
  title: string;
  root: HTMLElement;
  /** Called when the tab is shown; `arg` is what a link asked for (an entity, a session). */
  show(arg?: string): void;
}


const keyInput = h("input", {
  id: "api-key",
  type: "password",
  placeholder: "API key (gmk_...)",
  aria: { label: "API key" },
  attrs: { autocomplete: "off", spellcheck: "false" },
});
const tenantLine = h("span", { id: "tenant-line", class: "muted" });

const views: View[] = [];
const tabs = h("nav", { role: "tablist", aria: { label: "Views" } });
const main = h("main", { id: "view" });

function route(): void {
  const [id, ...rest] = window.location.hash.replace(/^#/, "").split("/");
  const view = views.find((v) => v.id === id) ?? views[0]!;
  const arg = rest.length ? decodeURIComponent(rest.join("/")) : undefined;
  for (const button of tabs.querySelectorAll("button")) {
    const on = button.dataset["view"] === view.id;
    button.setAttribute("aria-selected", String(on));
    button.tabIndex = on ? 0 : -1;
  }
  clear(main, view.root);
  document.title = `${view.title} · graphmem inspector`;
  view.show(arg);
}

async function probe(): Promise<boolean> {
  try {
    const counts = await need(api.GET("/v1/counts"));
    tenantLine.textContent =
      `${counts.entities.toLocaleString()} entities · ${counts.relationships.toLocaleString()} facts · ` +
      `${counts.turns.toLocaleString()} turns`;
    say(currentKey() ? "Key accepted." : "Connected.");
    return true;
  } catch (error) {
    if (!(error instanceof ApiError)) say(String(error), "error");
    return false;
  }
}

function useKey(): void {
  setKey(keyInput.value);
  keyInput.value = "";
  clearNames();
  void probe().then((ok) => ok && route());
}

function boot(): void {
  views.push(worldView(), npcView(), conversationsView(), recallView(), factsView());
  views.forEach((view, i) => {
    tabs.append(
      h(
        "button",
        {
          role: "tab",
          data: { view: view.id },
          id: `tab-${view.id}`,
          title: `${view.title} (Alt+${i + 1})`,
          onclick: () => go(view.id),
          onkeydown: (e) => {
            if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
            const next = views[(i + (e.key === "ArrowRight" ? 1 : views.length - 1)) % views.length]!;
            go(next.id);
            document.getElementById(`tab-${next.id}`)?.focus();
          },
        },
        `${view.title}`,
      ),
    );
  });
  const header = h(
    "header",
    {},
    h("h1", {}, "graphmem ", h("span", { class: "muted" }, "inspector")),
    tabs,
    h(
      "form",
      {
        id: "key-form",
        attrs: { "aria-label": "API key" },
      },
      keyInput,
      h("button", { type: "submit", id: "use-key" }, "Use key"),
      h("button", { type: "button", id: "forget-key", onclick: () => { setKey(null); clearNames(); tenantLine.textContent = ""; say("Key forgotten."); } }, "Forget"),
    ),
    tenantLine,
  );
  header.querySelector("form")!.addEventListener("submit", (e) => {
    e.preventDefault();
    useKey();
  });
  document.body.replaceChildren(header, main, h("footer", {}, status));
  onApiError((error) => {
    if (error.status === 401 || error.status === 403) {
      say(`This server needs an API key that opens a tenant (${error.message}). Enter it above.`, "error");
      keyInput.focus();
    } else {
      say(error.message, "error");
    }
  });
  window.addEventListener("popstate", route);
  window.addEventListener("inspector:route", route);
  window.addEventListener("keydown", (e) => {
    if (!e.altKey || e.ctrlKey || e.metaKey) return;
    const n = Number(e.key);
    if (n >= 1 && n <= views.length) {
      e.preventDefault();
      go(views[n - 1]!.id);
    }
  });
  route();
  void probe();
}

boot();
