// World: search entities, draw neighbourhoods (expand on click), filter, hover for provenance
// and validity, and a time slider over world time (as_of) and memory time (recorded_as_of).
// Only the neighbourhoods asked for are ever read: never the whole graph.
import cytoscape from "cytoscape";
import { api, type Entity, need, type Relationship, remember } from "./api";
import { clear, h, pct, when } from "./dom";
import type { View } from "./main";
import { go, say } from "./shell";

type Clock = "as_of" | "recorded_as_of" | "both";

const PALETTE: Record<string, string> = {
  npc: "#2563eb",
  player: "#db2777",
  location: "#059669",
  item: "#d97706",
  faction: "#7c3aed",
  quest: "#0891b2",
  event: "#dc2626",
  concept: "#4b5563",
};

function colour(type: string): string {
  const known = PALETTE[type];
  if (known) return known;
  let hash = 0;
  for (const c of type) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360} 55% 42%)`;
}

const relKey = (r: Relationship): string => `${r.source_id}|${r.type}|${r.target_id}`;

export function worldView(): View {
  const expanded: string[] = [];
  const entities = new Map<string, Entity>();
  let rels = new Map<string, Relationship>();
  const stops = new Set<string>();
  let selected: string | null = null;
  const hiddenTypes = new Set<string>();
  const hiddenRels = new Set<string>();

  // ---------------------------------------------------------------- elements
  const search = h("input", {
    id: "entity-search",
    type: "search",
    placeholder: "Search entities by name…",
    aria: { label: "Search entities by name" },
    attrs: { autocomplete: "off" },
  });
  const results = h("ul", { id: "search-results", class: "plain", aria: { label: "Search results" } });
  const hint = (): HTMLElement =>
    h(
      "p",
      { class: "muted" },
      "Type a name; Enter opens the first match. Click a node, or press Enter on a neighbour in this list, to " +
        "expand it: only the neighbourhoods you open are read. Hover a fact for its provenance and validity.",
    );
  const details = h("div", { id: "entity-details" }, hint());
  const filters = h("div", { id: "filters" });
  const graphBox = h("div", { id: "graph", role: "img", aria: { label: "Graph of the expanded neighbourhoods" } });
  const tip = h("div", { id: "tip", role: "tooltip", hidden: true });
  const clockSelect = h(
    "select",
    { id: "clock", aria: { label: "Which clock the slider moves" } },
    h("option", { value: "as_of" }, "world time (as_of)"),
    h("option", { value: "recorded_as_of" }, "memory time (recorded_as_of)"),
    h("option", { value: "both" }, "both clocks"),
  );
  const slider = h("input", {
    id: "time-slider",
    type: "range",
    aria: { label: "Time: move back to see the world as it was" },
    attrs: { min: "0", max: "0", step: "1", value: "0" },
  });
  const timeLabel = h("output", { id: "time-label", for: "time-slider" }, "now");
  const legend = h("div", { id: "legend", class: "muted" });

  const cy = cytoscape({
    container: graphBox,
    minZoom: 0.2,
    maxZoom: 3,
    layout: { name: "null" }, // the container is not in the page yet: nothing to lay out
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)",
          "background-color": "data(colour)",
          color: "#111827",
          "font-size": 13,
          "text-valign": "bottom",
          "text-margin-y": 4,
          "text-wrap": "ellipsis",
          "text-max-width": "120px",
          width: 22,
          height: 22,
          "border-width": 0,
        },
      },
      { selector: "node.expanded", style: { width: 30, height: 30, "border-width": 3, "border-color": "#111827" } },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#f59e0b" } },
      {
        selector: "edge",
        style: {
          label: "data(label)",
          "font-size": 10,
          color: "#374151",
          "text-rotation": "autorotate",
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.85,
          "text-background-padding": "1px",
          width: "data(width)",
          "line-color": "#9ca3af",
          "target-arrow-color": "#9ca3af",
          "target-arrow-shape": "triangle",
          "curve-style": "bezier",
        },
      },
      { selector: "edge.inferred", style: { "line-style": "dashed" } },
      { selector: "edge.confirmed", style: { "line-color": "#111827", "target-arrow-color": "#111827" } },
      { selector: "edge.ended", style: { "line-color": "#dc2626", "target-arrow-color": "#dc2626", "line-style": "dotted" } },
      { selector: ".filtered", style: { display: "none" } },
    ],
  });
  (window as unknown as { graphmemInspector: unknown }).graphmemInspector = { cy };

  // ---------------------------------------------------------------- reads
  function clockQuery(): { as_of?: string; recorded_as_of?: string } {
    const at = momentAt();
    if (at === null) return {};
    const clock = clockSelect.value as Clock;
    if (clock === "as_of") return { as_of: at };
    if (clock === "recorded_as_of") return { recorded_as_of: at };
    return { as_of: at, recorded_as_of: at };
  }

  function hood(id: string, query: Record<string, unknown>) {
    return need(
      api.GET("/v1/entities/{entity_id}/neighborhood", {
        params: { path: { entity_id: id }, query: { limit: 500, ...query } },
      }),
    );
  }

  function sortedStops(): string[] {
    return [...stops].sort((a, b) => Date.parse(a) - Date.parse(b));
  }

  function momentAt(): string | null {
    const list = sortedStops();
    const i = Number(slider.value);
    return i >= list.length ? null : list[i]!;
  }

  async function expand(id: string): Promise<void> {
    if (!expanded.includes(id)) expanded.push(id);
    const [now, ever] = await Promise.all([hood(id, clockQuery()), hood(id, { include_invalid: true })]);
    const atEnd = Number(slider.value) >= stops.size;
    for (const r of ever.relationships)
      for (const t of [r.valid_at, r.invalid_at, r.created_at, r.expired_at]) if (t) stops.add(t);
    remember([...now.entities, ...ever.entities]);
    slider.max = String(stops.size);
    if (atEnd) slider.value = String(stops.size);
    updateLabel();
    merge(now.entities, now.relationships);
    draw(true);
    select(id);
    say(`${entities.get(id)?.name ?? id}: ${now.relationships.length} facts around it.`);
  }

  function merge(found: readonly Entity[], facts: readonly Relationship[]): void {
    for (const e of found) entities.set(e.id, e);
    for (const r of facts) rels.set(relKey(r), r);
  }

  /** Read every expanded neighbourhood again under the slider's clock, and redraw. */
  async function redraw(): Promise<void> {
    const query = clockQuery();
    const hoods = await Promise.all(expanded.map((id) => hood(id, query)));
    rels = new Map();
    for (const found of hoods) merge(found.entities, found.relationships);
    draw(false);
    if (selected) showDetails(selected);
    const at = momentAt();
    say(at ? `The world as it was at ${when(at)} (${clockSelect.value}).` : "The world now.");
  }

  // ---------------------------------------------------------------- drawing
  function draw(layout: boolean): void {
    tip.hidden = true; // what it described may be gone
    const wanted = new Set<string>(expanded);
    for (const r of rels.values()) {
      wanted.add(r.source_id);
      wanted.add(r.target_id);
    }
    cy.batch(() => {
      cy.elements().forEach((el) => {
        const id = el.id();
        const keep = el.group() === "nodes" ? wanted.has(id) : rels.has(id.slice(2));
        if (!keep) el.remove();
      });
      for (const id of wanted) {
        const e = entities.get(id);
        const data = { id, label: e?.name ?? id, colour: colour(e?.type ?? "?"), type: e?.type ?? "?" };
        const node = cy.getElementById(id);
        if (node.empty()) {
          const near = expanded.map((x) => cy.getElementById(x)).find((n) => n.nonempty());
          const base = near ? near.position() : { x: 0, y: 0 };
          const angle = Math.random() * 2 * Math.PI;
          const radius = 120 + Math.random() * 120;
          cy.add({ group: "nodes", data, position: { x: base.x + radius * Math.cos(angle), y: base.y + radius * Math.sin(angle) } });
        } else node.data(data);
        cy.getElementById(id).toggleClass("expanded", expanded.includes(id));
      }
      for (const [key, r] of rels) {
        const id = `e:${key}`;
        const data = {
          id,
          source: r.source_id,
          target: r.target_id,
          label: r.type,
          width: 1 + 3 * (r.provenance?.confidence ?? 1),
        };
        if (cy.getElementById(id).empty()) cy.add({ group: "edges", data });
        const edge = cy.getElementById(id);
        edge.toggleClass("inferred", r.provenance?.source === "inferred");
        edge.toggleClass("confirmed", Boolean(r.provenance?.confirmed));
        edge.toggleClass("ended", Boolean(r.invalid_at || r.expired_at));
      }
    });
    applyFilters();
    buildFilters();
    if (layout) {
      cy.layout({
        name: "cose",
        animate: false,
        randomize: false,
        nodeRepulsion: () => 60000,
        nodeOverlap: 40,
        idealEdgeLength: () => 120,
        edgeElasticity: () => 80,
        gravity: 0.6,
        numIter: 1500,
        padding: 30,
      }).run();
    }
  }

  function applyFilters(): void {
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        n.toggleClass("filtered", hiddenTypes.has(String(n.data("type"))) && !expanded.includes(n.id()));
      });
      cy.edges().forEach((e) => {
        e.toggleClass("filtered", hiddenRels.has(String(e.data("label"))));
      });
    });
  }

  function checkboxes(title: string, values: string[], hidden: Set<string>, prefix: string): HTMLElement {
    return h(
      "fieldset",
      {},
      h("legend", {}, title),
      ...values.map((value) => {
        const box = h("input", {
          type: "checkbox",
          id: `${prefix}-${value}`,
          data: { value },
          onchange: () => {
            if (box.checked) hidden.delete(value);
            else hidden.add(value);
            applyFilters();
          },
        });
        box.checked = !hidden.has(value);
        return h("label", { class: "check" }, box, " ", value);
      }),
    );
  }

  function buildFilters(): void {
    const types = [...new Set([...entities.values()].map((e) => e.type))].sort();
    const relTypes = [...new Set([...rels.values()].map((r) => r.type))].sort();
    clear(
      filters,
      types.length ? checkboxes("Entity types", types, hiddenTypes, "type") : null,
      relTypes.length ? checkboxes("Relationship types", relTypes, hiddenRels, "rel") : null,
    );
    clear(
      legend,
      ...types.map((t) => h("span", { class: "swatch" }, h("i", { attrs: { style: `background:${colour(t)}` } }), t)),
      h("span", {}, "— dashed: inferred · dark: confirmed by a game master · red dotted: ended since"),
    );
  }

  // ---------------------------------------------------------------- text of a fact
  function factLines(r: Relationship): string[] {
    const p = r.provenance;
    const lines = [
      `${entities.get(r.source_id)?.name ?? r.source_id} —${r.type}→ ${entities.get(r.target_id)?.name ?? r.target_id}`,
    ];
    if (p) {
      lines.push(
        `source: ${p.source}${p.confirmed ? " (confirmed)" : ""} · confidence ${pct(p.confidence ?? 1)}` +
          (p.session_id ? ` · session ${p.session_id}` : ""),
      );
      if (p.evidence?.length) lines.push(`evidence: ${p.evidence.join(", ")}`);
    }
    lines.push(`holds in the world: ${when(r.valid_at ?? r.created_at)} → ${r.invalid_at ? when(r.invalid_at) : "now"}`);
    lines.push(`recorded: ${when(r.created_at)}${r.expired_at ? ` · stopped believing ${when(r.expired_at)}` : ""}`);
    return lines;
  }

  function showTip(lines: string[], x: number, y: number): void {
    clear(tip, ...lines.map((l, i) => h(i ? "div" : "strong", {}, l)));
    tip.hidden = false;
    const box = graphBox.getBoundingClientRect();
    tip.style.left = `${Math.min(x + 14, box.width - 330)}px`;
    tip.style.top = `${Math.min(y + 14, box.height - 120)}px`;
  }

  cy.on("mouseover", "edge", (event) => {
    const r = rels.get(String(event.target.id()).slice(2));
    if (r) showTip(factLines(r), event.renderedPosition.x, event.renderedPosition.y);
  });
  cy.on("mouseover", "node", (event) => {
    const e = entities.get(event.target.id());
    if (!e) return;
    const attrs = Object.entries(e.attributes ?? {}).slice(0, 6).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
    showTip([`${e.name} (${e.type})`, ...attrs, `updated ${when(e.updated_at)}`], event.renderedPosition.x, event.renderedPosition.y);
  });
  cy.on("mouseout", () => {
    tip.hidden = true;
  });
  cy.on("tap", "node", (event) => {
    void expand(event.target.id());
  });

  // ---------------------------------------------------------------- the side panel
  function select(id: string): void {
    selected = id;
    cy.$(":selected").unselect();
    cy.getElementById(id).select();
    showDetails(id);
  }

  function showDetails(id: string): void {
    const e = entities.get(id);
    if (!e) return;
    const around = [...rels.values()].filter((r) => r.source_id === id || r.target_id === id);
    const others = [...new Set(around.map((r) => (r.source_id === id ? r.target_id : r.source_id)))];
    clear(
      details,
      h("h3", {}, e.name, " ", h("span", { class: `badge t-${e.type}` }, e.type)),
      e.type === "npc" || e.type === "player"
        ? h("button", { type: "button", class: "link", onclick: () => go("npc", id) }, "Open in the NPC view →")
        : null,
      Object.keys(e.attributes ?? {}).length
        ? h(
            "dl",
            { class: "attrs" },
            ...Object.entries(e.attributes ?? {}).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, typeof v === "string" ? v : JSON.stringify(v))]),
          )
        : null,
      h("h4", {}, `Facts (${around.length})`),
      h(
        "ul",
        { class: "facts", id: "facts-of-selected" },
        ...around.map((r) => {
          const [head, ...rest] = factLines(r);
          return h("li", { class: r.invalid_at ? "ended" : "" }, h("strong", {}, head), ...rest.map((l) => h("div", { class: "muted" }, l)));
        }),
      ),
      h("h4", {}, "Neighbours (Enter expands)"),
      h(
        "ul",
        { class: "plain", id: "neighbours" },
        ...others.map((other) =>
          h(
            "li",
            {},
            h(
              "button",
              { type: "button", class: "entity", data: { entity: other }, onclick: () => void expand(other) },
              entities.get(other)?.name ?? other,
              " ",
              h("span", { class: "muted" }, entities.get(other)?.type ?? ""),
              expanded.includes(other) ? " ✓" : "",
            ),
          ),
        ),
      ),
    );
  }

  // ---------------------------------------------------------------- search
  let pending = 0;
  let shown = "";
  async function find(): Promise<void> {
    const text = search.value.trim();
    if (text === shown) return; // already listed: keep the focus where it is
    const ticket = ++pending;
    if (!text) {
      shown = "";
      clear(results);
      return;
    }
    const found = await need(api.GET("/v1/entities", { params: { query: { name_contains: text, limit: 20 } } }));
    if (ticket !== pending) return;
    shown = text;
    remember(found.entities);
    clear(
      results,
      ...found.entities.map((e) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "entity", data: { entity: e.id }, onclick: () => void expand(e.id) },
            e.name,
            " ",
            h("span", { class: "muted" }, e.type),
          ),
        ),
      ),
      found.entities.length ? null : h("li", { class: "muted" }, "No entity by that name."),
    );
  }
  let timer = 0;
  search.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void find(), 200);
  });
  search.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      window.clearTimeout(timer);
      void find().then(() => results.querySelector("button")?.focus());
    }
  });

  // ---------------------------------------------------------------- time
  function updateLabel(): void {
    const at = momentAt();
    timeLabel.textContent = at ? `${when(at)} (stop ${Number(slider.value) + 1} of ${stops.size})` : "now";
  }
  let slideTimer = 0;
  slider.addEventListener("input", () => {
    updateLabel();
    window.clearTimeout(slideTimer);
    slideTimer = window.setTimeout(() => void redraw(), 120);
  });
  clockSelect.addEventListener("change", () => void redraw());

  const root = h(
    "div",
    { class: "world" },
    h(
      "aside",
      { class: "panel" },
      h("label", { for: "entity-search", class: "label" }, "Find an entity"),
      search,
      results,
      details,
      filters,
      h(
        "button",
        {
          type: "button",
          id: "clear-graph",
          onclick: () => {
            expanded.length = 0;
            rels.clear();
            cy.elements().remove();
            clear(details, hint());
            buildFilters();
          },
        },
        "Clear the graph",
      ),
    ),
    h(
      "div",
      { class: "canvas" },
      graphBox,
      tip,
      h(
        "div",
        { class: "timebar" },
        h("label", { for: "clock" }, "Clock "),
        clockSelect,
        slider,
        timeLabel,
        h(
          "button",
          {
            type: "button",
            id: "time-now",
            onclick: () => {
              slider.value = slider.max;
              updateLabel();
              void redraw();
            },
          },
          "Now",
        ),
      ),
      legend,
    ),
  );

  return {
    id: "world",
    title: "World",
    root,
    show(arg?: string) {
      requestAnimationFrame(() => cy.resize());
      if (arg && !expanded.includes(arg)) void expand(arg);
      else if (!arg) search.focus();
    },
  };
}
