// Recall: a question in; the results with each signal's part (full text, vector, graph,
// conversation signals) and, for a graph question, the path of facts behind the answer.
import { api, nameOf, need, remember } from "./api";
import { clear, h, pct, section, when } from "./dom";
import type { View } from "./main";
import { say } from "./shell";

function signalBars(signals: Record<string, unknown>, maxima: Map<string, number>, hops: number | null | undefined): HTMLElement {
  const entries = Object.entries(signals).filter((e): e is [string, number] => typeof e[1] === "number");
  if (!entries.length) {
    return h("p", { class: "signals muted" }, hops != null ? `graph: reached ${hops} hop(s) from a seed entity (no text or vector signal of its own)` : "no signals");
  }
  return h(
    "ul",
    { class: "signals" },
    ...entries.map(([name, value]) => {
      // A rank: 1 is best, so the bar is 1/rank; a score: its share of the best seen.
      const share = name.endsWith("_rank") ? 1 / Math.max(1, value) : Math.abs(value) / (maxima.get(name) || 1);
      const width = Math.max(2, Math.round(share * 100));
      return h(
        "li",
        { data: { signal: name }, title: `${name}: ${value}` },
        h("span", { class: "signal-name" }, name),
        h("span", { class: "bar" }, h("i", { attrs: { style: `width:${width}%` } })),
        h("span", { class: "signal-value" }, Number.isInteger(value) ? String(value) : value.toFixed(3)),
      );
    }),
  );
}

export function recallView(): View {
  const question = h("input", {
    id: "question",
    type: "search",
    placeholder: "Ask what the memory knows… e.g. who does Odile Marrow distrust?",
    aria: { label: "Question" },
    attrs: { autocomplete: "off" },
  });
  const k = h("input", { id: "recall-k", type: "number", aria: { label: "How many results" }, attrs: { min: "1", max: "100", value: "10" } });
  const hops = h("input", { id: "recall-hops", type: "number", aria: { label: "Graph hops" }, attrs: { min: "0", max: "4", value: "2" } });
  const out = h("div", { id: "recall-out", class: "columns" });

  async function run(): Promise<void> {
    const text = question.value.trim();
    if (!text) return;
    say("Recalling…");
    const [retrieved, asked] = await Promise.all([
      need(api.POST("/v1/retrieve", { body: { query: text, k: Number(k.value) || 10, hops: Number(hops.value) || 0, max_tokens: 400 } })),
      need(api.POST("/v1/ask", { body: { question: text, k: 5 } })),
    ]);
    for (const a of asked.answers) remember([a.entity]);
    const maxima = new Map<string, number>();
    for (const r of retrieved.results)
      for (const [name, value] of Object.entries(r.signals ?? {}))
        if (typeof value === "number") maxima.set(name, Math.max(maxima.get(name) ?? 0, Math.abs(value)));
    clear(
      out,
      h(
        "div",
        { class: "col" },
        section(
          `Results (${retrieved.results.length}), best first, with each signal's part`,
          h(
            "ol",
            { class: "results", id: "recall-results" },
            ...retrieved.results.map((r) =>
              h(
                "li",
                { data: { kind: r.kind } },
                h("div", {}, h("span", { class: `badge k-${r.kind}` }, r.kind), " ", h("strong", {}, r.content.slice(0, 240))),
                h(
                  "div",
                  { class: "muted" },
                  `score ${r.score.toFixed(4)}`,
                  r.hops != null ? ` · ${r.hops} hops from ${r.anchor_entity_id ? nameOf(r.anchor_entity_id) : "a seed"}` : "",
                  r.provenance ? ` · ${r.provenance.source} ${pct(r.provenance.confidence ?? 1)}${r.provenance.confirmed ? " confirmed" : ""}` : "",
                  r.valid_at ? ` · holds from ${when(r.valid_at)}` : "",
                ),
                signalBars((r.signals ?? {}) as Record<string, unknown>, maxima, r.hops),
              ),
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "col" },
        section(
          "Graph answer",
          asked.abstained
            ? h("p", { id: "abstained", class: "muted" }, `No graph answer: ${asked.reason}`)
            : h(
                "ol",
                { id: "graph-answers", class: "results" },
                ...asked.answers.map((a) =>
                  h(
                    "li",
                    {},
                    h("strong", {}, a.entity.name),
                    h("span", { class: "muted" }, ` · score ${a.score.toFixed(3)} · ${a.support} chain(s) · type fit ${a.type_fit.toFixed(2)}`),
                    h(
                      "ol",
                      { class: "path", aria: { label: "path of facts" } },
                      ...a.facts.map((f) =>
                        h(
                          "li",
                          {},
                          `${nameOf(f.source_id)} —${f.type}→ ${nameOf(f.target_id)}`,
                          h("span", { class: "muted" }, ` (${f.provenance?.source ?? "?"}, ${pct(f.provenance?.confidence ?? 1)})`),
                        ),
                      ),
                    ),
                    h("div", { class: "muted" }, a.explanation),
                  ),
                ),
              ),
          asked.unexplained.length ? h("p", { class: "muted" }, `Words no step explains: ${asked.unexplained.join(", ")}`) : null,
          asked.abstained ? null : h("p", { class: "muted" }, `confidence ${pct(asked.confidence)}`),
        ),
        retrieved.context ? section("As prompt text (400 tokens)", h("pre", { class: "prompt" }, retrieved.context)) : null,
      ),
    );
    say(`${retrieved.results.length} results; ${asked.abstained ? "no graph answer" : `${asked.answers.length} graph answers`}.`);
  }

  const form = h(
    "form",
    { class: "toolbar", id: "recall-form" },
    h("label", { for: "question" }, "Question "),
    question,
    h("label", { for: "recall-k" }, " k "),
    k,
    h("label", { for: "recall-hops" }, " hops "),
    hops,
    h("button", { type: "submit" }, "Recall"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void run();
  });
  return {
    id: "recall",
    title: "Recall",
    root: h("div", {}, form, out),
    show() {
      question.focus();
    },
  };
}
