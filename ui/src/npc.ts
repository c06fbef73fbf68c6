// NPC: the identity snapshot and its prompt under a token budget; beliefs beside the world's
// truth (false ones marked), how each was come by and how sure; who knows a fact; events.
import { api, type BeliefCheck, factText, loadNames, type MindFact, nameOf, need, remember } from "./api";
import { clear, h, pct, section, table, when } from "./dom";
import type { View } from "./main";
import { go, say } from "./shell";

function how(check: BeliefCheck): string {
  const b = check.belief;
  const sources = b.sources ?? [];
  // The chain of hand-overs, when it is more than the one who told it.
  const firstHand = sources.length === 1 && sources[0] === b.told_by;
  const chain = sources.length && !firstHand ? sources.map(nameOf).join(" → ") : "";
  if (b.how === "told" || b.told_by) {
    return `told by ${b.told_by ? nameOf(b.told_by) : "someone"}${chain ? ` (chain: ${chain})` : ""}`;
  }
  return chain ? `${b.how} (from ${chain})` : b.how;
}

export function npcView(): View {
  const picker = h("input", {
    id: "npc-id",
    type: "search",
    placeholder: "NPC id or name…",
    aria: { label: "NPC id or name" },
    attrs: { list: "npc-list", autocomplete: "off" },
  });
  const options = h("datalist", { id: "npc-list" });
  const budget = h("input", {
    id: "token-budget",
    type: "number",
    aria: { label: "Token budget of the prompt" },
    attrs: { min: "10", max: "100000", step: "10", value: "220" },
  });
  const body = h("div", { id: "npc-body", class: "columns" });
  let current: string | null = null;

  async function fillPicker(): Promise<void> {
    const found = await need(api.GET("/v1/entities", { params: { query: { type: "npc", limit: 500 } } }));
    remember(found.entities);
    clear(options, ...found.entities.map((e) => h("option", { value: e.id }, e.name)));
  }

  async function resolve(text: string): Promise<string | null> {
    const exact = await api.GET("/v1/entities/{entity_id}", { params: { path: { entity_id: text } } });
    if (exact.data) return exact.data.id;
    const named = await need(api.GET("/v1/entities", { params: { query: { name_contains: text, limit: 1 } } }));
    return named.entities[0]?.id ?? null;
  }

  async function open(id: string): Promise<void> {
    current = id;
    const budgetValue = Math.max(10, Number(budget.value) || 220);
    const [snapshot, prompt, checks, events] = await Promise.all([
      need(api.GET("/v1/npcs/{npc_id}/snapshot", { params: { path: { npc_id: id } } })),
      need(api.GET("/v1/npcs/{npc_id}/prompt", { params: { path: { npc_id: id }, query: { max_tokens: budgetValue } } })),
      need(api.GET("/v1/npcs/{npc_id}/beliefs/truth", { params: { path: { npc_id: id } } })),
      need(api.GET("/v1/events", { params: { query: { witness: id, limit: 200 } } })),
    ]);
    if (current !== id) return; // another NPC was asked for meanwhile
    remember([snapshot.entity, ...snapshot.related_entities]);
    await loadNames([
      ...checks.checks.flatMap((c) => [
        c.belief.fact.subject,
        c.belief.fact.object ?? "",
        c.belief.told_by ?? "",
        ...(c.belief.sources ?? []),
        ...(c.belief.fact.object != null ? c.truth.map(String) : []),
      ]),
      ...events.events.flatMap((e) => [e.actor ?? "", e.place ?? "", ...(e.witnesses ?? [])]),
    ].filter(Boolean));
    if (current !== id) return;
    const entity = snapshot.entity;
    const falseCount = checks.checks.filter((c) => !c.agrees).length;
    const whoKnows = h("div", { id: "who-knows" });

    async function askWhoKnows(fact: MindFact): Promise<void> {
      const found = await need(api.POST("/v1/beliefs/who-knows", { body: { fact } }));
      await loadNames(found.beliefs.map((b) => b.holder));
      clear(
        whoKnows,
        h("h3", {}, `Who believes “${factText(fact)}”`),
        found.beliefs.length
          ? h("ul", { class: "plain" }, ...found.beliefs.map((b) => h("li", {}, `${nameOf(b.holder)} — ${b.how}, ${pct(b.confidence ?? 1)} sure, since ${when(b.valid_from)}`)))
          : h("p", { class: "muted" }, "Nobody holds it."),
      );
      whoKnows.querySelector("h3")?.setAttribute("tabindex", "-1");
      (whoKnows.querySelector("h3") as HTMLElement | null)?.focus();
    }

    clear(
      body,
      h(
        "div",
        { class: "col" },
        section(
          `${entity.name} (${entity.type})`,
          h(
            "dl",
            { class: "attrs" },
            ...Object.entries(entity.attributes ?? {}).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, typeof v === "string" ? v : JSON.stringify(v))]),
          ),
          h("h3", {}, `Facts about ${entity.name} (${snapshot.relationships.length})`),
          h(
            "ul",
            { class: "facts" },
            ...snapshot.relationships.map((r) =>
              h("li", {}, `${nameOf(r.source_id)} —${r.type}→ ${nameOf(r.target_id)}`, h("span", { class: "muted" }, ` · ${r.provenance?.source ?? ""} ${pct(r.provenance?.confidence ?? 1)}`)),
            ),
          ),
          h("button", { type: "button", class: "link", onclick: () => go("world", id) }, "Show in the World view →"),
        ),
        section(
          "Prompt",
          h("p", { class: "muted", id: "prompt-tokens" }, `${prompt.token_estimate} tokens estimated, budget ${budgetValue}`),
          h("pre", { id: "prompt-text", class: "prompt" }, prompt.prompt),
        ),
      ),
      h(
        "div",
        { class: "col" },
        section(
          `Beliefs beside the truth (${checks.checks.length}; ${falseCount} false)`,
          checks.checks.length
            ? table(
                ["", "believes", "the world holds", "how", "sure", "since", ""],
                checks.checks.map((c) => [
                  c.agrees ? h("span", { class: "ok", title: "agrees with the world" }, "✓") : h("span", { class: "false-belief", title: "a false belief" }, "✗ false"),
                  factText(c.belief.fact),
                  c.truth.length ? c.truth.map((t) => (typeof t === "string" ? nameOf(t) : JSON.stringify(t))).join(", ") : h("span", { class: "muted" }, "nothing"),
                  how(c),
                  pct(c.belief.confidence ?? 1),
                  when(c.belief.valid_from),
                  h("button", { type: "button", class: "small", onclick: () => void askWhoKnows(c.belief.fact) }, "who knows?"),
                ]),
                { id: "beliefs", class: "beliefs" },
              )
            : h("p", { class: "muted" }, "No beliefs recorded for this NPC (record events, tells or announcements)."),
          whoKnows,
        ),
        section(
          `Events ${entity.name} witnessed (${events.events.length})`,
          events.events.length
            ? h(
                "ol",
                { class: "timeline", id: "events" },
                ...events.events.map((e) =>
                  h(
                    "li",
                    {},
                    h("time", { attrs: { datetime: e.at } }, when(e.at)),
                    h("strong", {}, ` ${e.type}`),
                    e.actor ? ` by ${nameOf(e.actor)}` : "",
                    e.place ? ` at ${nameOf(e.place)}` : "",
                    h(
                      "div",
                      { class: "muted" },
                      [
                        ...(e.changes ?? []).map(factText),
                        ...(e.reveals ?? []).map((f) => `reveals ${factText(f)}`),
                        ...(e.claims ?? []).map((f) => `claims ${factText(f)}`),
                      ].join("; ") || e.summary || "—",
                    ),
                    h("div", { class: "muted" }, `witnesses: ${(e.witnesses ?? []).map(nameOf).join(", ") || "—"}`),
                  ),
                ),
              )
            : h("p", { class: "muted" }, "No events."),
        ),
      ),
    );
    say(`${entity.name}: ${checks.checks.length} beliefs, ${falseCount} false; ${events.events.length} events.`);
  }

  async function submit(): Promise<void> {
    const text = picker.value.trim();
    if (!text) return;
    const id = await resolve(text);
    if (!id) {
      say(`No entity ${JSON.stringify(text)}.`, "error");
      return;
    }
    go("npc", id);
  }

  const form = h(
    "form",
    { class: "toolbar", id: "npc-form" },
    h("label", { for: "npc-id" }, "NPC "),
    picker,
    options,
    h("label", { for: "token-budget" }, " token budget "),
    budget,
    h("button", { type: "submit" }, "Show"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void submit();
  });
  budget.addEventListener("change", () => current && void open(current));

  return {
    id: "npc",
    title: "NPC",
    root: h("div", {}, form, body),
    show(arg?: string) {
      void fillPicker();
      if (arg) {
        picker.value = arg;
        void open(arg);
      } else picker.focus();
    },
  };
}
