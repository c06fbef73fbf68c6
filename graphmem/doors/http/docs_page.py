# ruff: noqa: E501  (the page: HTML and script lines read best unbroken)
"""``/docs`` and ``/redoc``: the API reference as one self-contained page, offline.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, so they are blank on a
machine without internet (a game studio's build server, a plane). This page has no
dependency: its script reads ``/openapi.json`` and lists every operation by tag, with
its parameters, body, responses and the schemas they refer to.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

__all__ = ["add_docs_pages"]

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>graphmem API</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d232b;background:#fafbfc}
main{max-width:980px;margin:0 auto;padding:16px 24px 64px}
h1{margin:.4em 0 .1em}h2{border-bottom:1px solid #d8dde3;padding-bottom:4px;margin-top:2em}
details{background:#fff;border:1px solid #d8dde3;border-radius:6px;margin:6px 0}
summary{cursor:pointer;padding:8px 10px;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:4.2em;font-weight:700}
.GET{color:#0b6bcb}.POST{color:#1a7f37}.PATCH{color:#9a6700}.PUT{color:#8250df}
.DELETE{color:#cf222e}.op{padding:0 14px 10px}table{border-collapse:collapse;width:100%}
td,th{border-top:1px solid #eef0f3;padding:4px 6px;text-align:left;vertical-align:top}
pre{background:#f3f5f7;padding:8px;overflow:auto;font-size:13px;border-radius:4px}
code{font-family:ui-monospace,monospace}.muted{color:#5c6670}
</style></head><body><main>
<h1 id="title">graphmem API</h1><p class="muted" id="meta">Loading /openapi.json ...</p>
<div id="intro"></div><div id="ops"></div><h2>Schemas</h2><div id="schemas"></div>
</main><script>
const esc = s => String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
const ref = r => r.split("/").pop();
function typeOf(s) {
  if (!s) return "";
  if (s.$ref) return `<a href="#schema-${esc(ref(s.$ref))}">${esc(ref(s.$ref))}</a>`;
  if (s.anyOf || s.oneOf) return (s.anyOf || s.oneOf).map(typeOf).join(" | ");
  if (s.type === "array") return `${typeOf(s.items)}[]`;
  return esc(s.type || "any") + (s.enum ? ` (${s.enum.map(esc).join(", ")})` : "");
}
function render(doc) {
  document.getElementById("title").textContent = doc.info.title + " " + doc.info.version;
  document.getElementById("meta").innerHTML = esc(doc.info.summary || "") +
    ' &middot; <a href="/openapi.json">openapi.json</a>';
  document.getElementById("intro").innerHTML = `<pre>${esc(doc.info.description || "")}</pre>`;
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths || {}))
    for (const [method, op] of Object.entries(ops)) {
      const tag = (op.tags || ["other"])[0];
      (byTag[tag] = byTag[tag] || []).push([method.toUpperCase(), path, op]);
    }
  let html = "";
  for (const [tag, ops] of Object.entries(byTag)) {
    html += `<h2>${esc(tag)}</h2>`;
    for (const [method, path, op] of ops) {
      const params = (op.parameters || []).map(p =>
        `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}${p.required ? ", required" : ""}</td>` +
        `<td>${typeOf(p.schema)}</td><td>${esc(p.description)}</td></tr>`).join("");
      const body = op.requestBody ? Object.entries(op.requestBody.content || {}).map(([t, c]) =>
        `<p>Body (<code>${esc(t)}</code>): ${typeOf(c.schema)}</p>`).join("") : "";
      const responses = Object.entries(op.responses || {}).map(([code, r]) => {
        const shown = r.$ref ? ref(r.$ref) : (r.description || "");
        const schema = r.content ? Object.values(r.content).map(c => typeOf(c.schema)).join(", ") : "";
        return `<tr><td>${esc(code)}</td><td>${esc(shown)}</td><td>${schema}</td></tr>`;
      }).join("");
      html += `<details><summary><span class="m ${method}">${method}</span> ${esc(path)}` +
        ` <span class="muted">${esc(op.summary || "")}</span></summary><div class="op">` +
        `<pre>${esc(op.description || "")}</pre>` +
        (params ? `<table><tr><th>parameter</th><th>in</th><th>type</th><th></th></tr>${params}</table>` : "") +
        body + `<table><tr><th>status</th><th>response</th><th>body</th></tr>${responses}</table></div></details>`;
    }
  }
  document.getElementById("ops").innerHTML = html;
  document.getElementById("schemas").innerHTML = Object.entries(
    (doc.components || {}).schemas || {}).map(([name, s]) =>
    `<details id="schema-${esc(name)}"><summary>${esc(name)}</summary><div class="op">` +
    `<pre>${esc(JSON.stringify(s, null, 2))}</pre></div></details>`).join("");
}
fetch("/openapi.json").then(r => r.json()).then(render).catch(e => {
  document.getElementById("meta").textContent = "Could not read /openapi.json: " + e;
});
</script></body></html>
"""


def add_docs_pages(app: FastAPI) -> None:
    """Serve the offline reference at ``/docs`` and ``/redoc`` (no CDN, no key)."""

    async def docs() -> HTMLResponse:
        return HTMLResponse(_PAGE)

    for path in ("/docs", "/redoc"):
        app.add_api_route(path, docs, methods=["GET"], include_in_schema=False)
