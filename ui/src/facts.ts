// Facts & audit: governed facts with trust and status, the audit trail, and its verification.
import { ApiError, api, need } from "./api";
import { clear, h, pct, section, table, when } from "./dom";
import type { View } from "./main";
import { say } from "./shell";

export function factsView(): View {
  const body = h("div", { id: "facts-body" });
  const all = h("input", { id: "include-all", type: "checkbox" });
  all.checked = true;
  const actor = h("input", { id: "fact-actor", type: "search", placeholder: "also as actor…", aria: { label: "Also read the facts an actor sees" } });
  actor.addEventListener("keydown", (e) => e.key === "Enter" && void load());

  async function verification(): Promise<HTMLElement> {
    const { data, error, response } = await api.GET("/v1/facts/verify");
    if (data) {
      return data.verified
        ? h("p", { id: "verification", class: "verified" }, `✓ The audit chain verifies: ${data.checked} records checked.`)
        : h(
            "div",
            { id: "verification", class: "broken" },
            h("p", {}, `✗ ${Object.keys(data.problems).length} records do not verify:`),
            h("ul", {}, ...Object.entries(data.problems).map(([id, why]) => h("li", {}, `${id}: ${why}`))),
          );
    }
    const problem = (error ?? {}) as { detail?: string };
    return h("p", { id: "verification", class: "muted" }, `Not verified (${response.status}): ${problem.detail ?? "no detail"}`);
  }

  async function load(): Promise<void> {
    try {
      const [audit, verified] = await Promise.all([
        need(api.GET("/v1/facts/audit", { params: { query: { limit: 500 } } })),
        verification(),
      ]);
      // Facts are visible per actor (an agent's own, plus shared scopes): read them as
      // each actor the audit trail names, and as the one typed in.
      const actors = [...new Set([...audit.entries.map((e) => e.actor), actor.value.trim()].filter(Boolean))];
      const lists = await Promise.all(
        actors.map((who) =>
          need(api.GET("/v1/facts", { params: { query: { actor: who, include_all: all.checked, include_pending: true } } })),
        ),
      );
      const byId = new Map(lists.flatMap((l) => l.facts).map((f) => [f.id, f]));
      const facts = { facts: [...byId.values()].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at)) };
      clear(
        body,
        section("Audit chain", verified),
        section(
          `Governed facts (${facts.facts.length})`,
          facts.facts.length
            ? table(
                ["subject", "relation", "value", "trust", "status", "source", "actor", "version", "since", "conflicts"],
                facts.facts.map((f) => [
                  f.subject,
                  f.relation,
                  f.value,
                  h("span", { class: "trust", title: String(f.trust) }, pct(f.trust)),
                  h("span", { class: `badge s-${f.status}` }, f.status),
                  f.source_type,
                  f.actor,
                  String(f.version ?? 1),
                  when(f.valid_at ?? f.created_at),
                  f.conflicts_with?.length ? f.conflicts_with.join(", ") : "",
                ]),
                { id: "governed-facts" },
              )
            : h("p", { class: "muted" }, "No governed facts (they are written through POST /v1/facts)."),
        ),
        section(
          `Audit trail (${audit.entries.length}, oldest first)`,
          table(
            ["seq", "action", "actor", "at", "facts", ""],
            audit.entries.map((e) => [
              String(e.seq),
              e.action,
              e.actor,
              when(e.at),
              e.fact_ids.join(", "),
              e.rolled_back ? h("span", { class: "badge" }, "rolled back") : "",
            ]),
            { id: "audit" },
          ),
        ),
      );
      say(`${facts.facts.length} governed facts, ${audit.entries.length} audit entries.`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }

  all.addEventListener("change", () => void load());
  return {
    id: "facts",
    title: "Facts & audit",
    root: h("div", {}, h("div", { class: "toolbar" }, h("label", { class: "check" }, all, " include superseded, forgotten and rejected facts"), actor, h("button", { type: "button", onclick: () => void load() }, "Reload")), body),
    show() {
      void load();
    },
  };
}
