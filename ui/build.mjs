// Bundles the inspector into ../graphmem/doors/http/ui_static/ (shipped in the wheel).
// Deterministic: the same sources and lock file give the same bytes, so a test can
// rebuild into a temporary folder and compare with the committed files.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "graphmem", "doors", "http", "ui_static"));
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2022"],
  legalComments: "eof",
  charset: "utf8",
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
for (const name of ["index.html", "style.css"]) copyFileSync(join(here, "src", name), join(out, name));
console.log(`built the inspector into ${out}`);
