// Conversations: a session's turn tree with its branches, the active head, and the summaries.
import { api, need, type Turn } from "./api";
import { clear, h, section, table, when } from "./dom";
import type { View } from "./main";
import { go, say } from "./shell";

const SHOWN = 400; // characters of a turn's content shown in the tree

function turnRow(turn: Turn, opts: { head: boolean; active: boolean; forks: number }): HTMLElement {
  const who = turn.speaker ? `${turn.role} · ${turn.speaker}` : turn.role;
  const text = turn.content.length > SHOWN ? `${turn.content.slice(0, SHOWN)}…` : turn.content;
  return h(
    "div",
    {
      class: `turn${opts.active ? " active" : ""}${opts.head ? " head" : ""}`,
      data: { turn: turn.id },
      tabindex: 0,
      title: `${turn.id} · ${when(turn.created_at)}`,
    },
    h("span", { class: "who" }, who),
    opts.head ? h("span", { class: "badge head-badge" }, "HEAD") : null,
    opts.forks > 1 ? h("span", { class: "badge fork-badge" }, `fork · ${opts.forks} branches`) : null,
    h("div", { class: "content" }, text),
    turn.summary ? h("div", { class: "summary" }, `summary: ${turn.summary}`) : null,
  );
}

/** The tree as nested lists: a run of single children stays at one level; a fork indents. */
function tree(turns: readonly Turn[], headId: string | null): HTMLElement {
  const byId = new Map(turns.map((t) => [t.id, t]));
  const children = new Map<string | null, Turn[]>();
  for (const t of turns) {
    const parent = t.parent_id && byId.has(t.parent_id) ? t.parent_id : null;
    const list = children.get(parent) ?? [];
    list.push(t);
    children.set(parent, list);
  }
  for (const list of children.values()) list.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const active = new Set<string>();
  for (let id = headId; id; id = byId.get(id)?.parent_id ?? null) {
    if (active.has(id)) break;
    active.add(id);
  }
  const root = h("ul", { class: "tree", role: "tree", id: "turn-tree" });
  // Iterative: a conversation may be thousands of turns deep.
  const work: [Turn, HTMLUListElement, string][] = (children.get(null) ?? []).map((t, i) => [t, root, `${i + 1}`]);
  work.reverse();
  while (work.length) {
    const [start, into, label] = work.pop()!;
    const branch = h("li", { role: "treeitem", class: active.has(start.id) ? "branch active" : "branch" });
    if (into !== root || (children.get(null)?.length ?? 0) > 1) branch.append(h("div", { class: "branch-label" }, `branch ${label}${active.has(start.id) ? " (active)" : ""}`));
    into.append(branch);
    let turn: Turn | undefined = start;
    while (turn) {
      const next: Turn[] = children.get(turn.id) ?? [];
      branch.append(turnRow(turn, { head: turn.id === headId, active: active.has(turn.id), forks: next.length }));
      if (next.length === 1) {
        turn = next[0];
        continue;
      }
      if (next.length > 1) {
        const sub = h("ul", { class: "tree", role: "group" });
        branch.append(sub);
        for (let i = next.length - 1; i >= 0; i--) work.push([next[i]!, sub, `${label}.${i + 1}`]);
      }
      turn = undefined;
    }
  }
  return root;
}

export function conversationsView(): View {
  const list = h("ul", { class: "plain", id: "sessions" });
  const body = h("div", { id: "conversation" });

  async function sessions(selected?: string): Promise<void> {
    const found = await need(api.GET("/v1/sessions"));
    clear(
      list,
      ...found.sessions.map((s) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: `entity${s.session_id === selected ? " current" : ""}`, data: { session: s.session_id }, onclick: () => go("conversations", s.session_id) },
            s.session_id,
            " ",
            h("span", { class: "muted" }, `${s.turn_count} turns`),
          ),
        ),
      ),
      found.sessions.length ? null : h("li", { class: "muted" }, "No conversations yet."),
    );
  }

  async function open(session: string): Promise<void> {
    const path = { params: { path: { session_id: session } } };
    const [turns, head, branches, recap] = await Promise.all([
      need(api.GET("/v1/conversations/{session_id}/turns", path)),
      need(api.GET("/v1/conversations/{session_id}/head", path)),
      need(api.GET("/v1/conversations/{session_id}/branches", path)),
      api.GET("/v1/recaps/{session_id}", path).then((r) => r.data ?? null),
    ]);
    const headId = head.turn?.id ?? null;
    const summaries = turns.turns.filter((t) => t.summary);
    clear(
      body,
      section(
        `${session}: ${turns.turns.length} turns, ${branches.branches.length} branches`,
        table(
          ["branch", "leaf", "forks from", "length", ""],
          branches.branches.map((b, i) => [
            String(i + 1),
            b.leaf.content.slice(0, 80),
            b.fork_point ? b.fork_point.content.slice(0, 60) : "—",
            String(b.length),
            b.active ? h("span", { class: "badge head-badge" }, "active") : "",
          ]),
          { id: "branches" },
        ),
      ),
      recap || summaries.length
        ? section(
            "Summaries",
            recap ? h("p", { id: "recap" }, h("strong", {}, "Recap: "), recap.text) : null,
            summaries.length ? h("ul", { class: "facts" }, ...summaries.map((t) => h("li", {}, t.summary ?? ""))) : null,
          )
        : null,
      section("Turn tree (the active branch in bold; HEAD marks the active head)", tree(turns.turns, headId)),
    );
    say(`${session}: ${turns.turns.length} turns in ${branches.branches.length} branches.`);
  }

  return {
    id: "conversations",
    title: "Conversations",
    root: h("div", { class: "world" }, h("aside", { class: "panel" }, h("h2", {}, "Sessions"), list), h("div", { class: "scroll" }, body)),
    show(arg?: string) {
      void sessions(arg);
      if (arg) void open(arg);
      else clear(body, h("p", { class: "muted" }, "Pick a session."));
    },
  };
}
