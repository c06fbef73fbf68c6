// Small DOM helpers: elements are built with text nodes, never from HTML strings.

type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  id?: string;
  title?: string;
  role?: string;
  type?: string;
  value?: string;
  placeholder?: string;
  for?: string;
  href?: string;
  tabindex?: number;
  disabled?: boolean;
  hidden?: boolean;
  aria?: Record<string, string>;
  data?: Record<string, string>;
  attrs?: Record<string, string>;
  onclick?: (event: MouseEvent) => void;
  oninput?: (event: Event) => void;
  onchange?: (event: Event) => void;
  onkeydown?: (event: KeyboardEvent) => void;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name === "class") el.className = String(value);
    else if (name === "aria") for (const [k, v] of Object.entries(value as object)) el.setAttribute(`aria-${k}`, String(v));
    else if (name === "data") for (const [k, v] of Object.entries(value as object)) el.dataset[k] = String(v);
    else if (name === "attrs") for (const [k, v] of Object.entries(value as object)) el.setAttribute(k, String(v));
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value as EventListener);
    else if (name === "disabled" || name === "hidden") (el as unknown as Record<string, boolean>)[name] = Boolean(value);
    else if (name === "value") (el as unknown as { value: string }).value = String(value);
    else if (name === "tabindex") el.tabIndex = Number(value);
    else el.setAttribute(name, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, ...children);
}

/** A time as readable UTC, to the millisecond when it has them (demo facts are ms apart). */
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const ms = d.getUTCMilliseconds();
  const base = d.toISOString().replace("T", " ").slice(0, 19);
  return ms ? `${base}.${String(ms).padStart(3, "0")} UTC` : `${base} UTC`;
}

export function pct(value: number): string {
  return `${Math.round(value * 100)}%`;
}

export function table(headers: string[], rows: Child[][], props: Props = {}): HTMLTableElement {
  return h(
    "table",
    props,
    h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { attrs: { scope: "col" } }, t)))),
    h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((c) => h("td", {}, c))))),
  );
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}
