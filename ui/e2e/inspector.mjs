// Drives the inspector in Debian's headless Chromium (playwright-core; never a downloaded
// browser) against a live `graphmem serve` on the demo village, and prints what it saw as
// JSON. Used by tests/server/test_inspector_ui.py, which makes the server and asserts.
//
//   node e2e/inspector.mjs URL SCREENSHOT_DIR [API_KEY]
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [url, shots, key] = process.argv.slice(2);
const origin = new URL(url).origin;
const seen = { foreignRequests: [], consoleErrors: [], steps: [] };
const profile = mkdtempSync(join(tmpdir(), "graphmem-chromium-"));
// A fresh, empty profile each run (playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.GRAPHMEM_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
const step = (name) => seen.steps.push(name);
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(20000);
  page.on("request", (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) seen.foreignRequests.push(r.url());
  });
  page.on("console", (m) => m.type() === "error" && seen.consoleErrors.push(m.text()));
  page.on("pageerror", (e) => seen.consoleErrors.push(String(e)));
  const status = () => page.locator("#status").textContent();
  const cyEdges = () => page.evaluate(() => window.graphmemInspector.cy.edges().map((e) => e.id()));
  const cyNodes = () => page.evaluate(() => window.graphmemInspector.cy.nodes().length);

  await page.goto(`${url}/ui`);
  if (key) {
    // Without a key every data call answers 401: the page says so and asks for one.
    await page.waitForFunction(() => /needs an API key/.test(document.querySelector("#status")?.textContent ?? ""));
    seen.withoutKey = await status();
    await page.fill("#api-key", key);
    await page.press("#api-key", "Enter");
    await page.waitForFunction(() => /Key accepted/.test(document.querySelector("#status")?.textContent ?? ""));
    seen.withKey = await status();
  }
  seen.tenantLine = await page.locator("#tenant-line").textContent();

  // ------------------------------------------------------------------ World: search, expand
  step("search");
  await page.keyboard.press("Alt+1");
  await page.focus("#entity-search");
  await page.keyboard.type("odile");
  await page.keyboard.press("Enter"); // searches and focuses the first result
  await page.locator('#search-results button[data-entity="odile"]').waitFor();
  seen.searchResults = await page.locator("#search-results button").allTextContents();
  await page.keyboard.press("Enter"); // the focused result: draw its neighbourhood
  await page.locator('#neighbours button[data-entity="halden"]').waitFor();
  seen.nodesAfterOdile = await cyNodes();
  step("expand");
  await page.locator('#neighbours button[data-entity="halden"]').click();
  await page.waitForFunction(() => /Halden Crook: \d+ facts/.test(document.querySelector("#status")?.textContent ?? ""));
  seen.nodesAfterHalden = await cyNodes();
  // A click on a node in the canvas expands it too.
  const pos = await page.evaluate(() => {
    const n = window.graphmemInspector.cy.getElementById("crooks_mill");
    const box = document.querySelector("#graph").getBoundingClientRect();
    return n.nonempty() ? { x: box.left + n.renderedPosition().x, y: box.top + n.renderedPosition().y } : null;
  });
  if (pos) {
    await page.mouse.click(pos.x, pos.y);
    await page.waitForFunction(() => /Crook's Mill: \d+ facts/.test(document.querySelector("#status")?.textContent ?? ""));
    seen.clickedNode = "crooks_mill";
  }
  seen.nodesAfterClick = await cyNodes();
  // Hover a fact: its provenance and validity.
  await page.locator('#search-results button[data-entity="odile"]').click();
  await page.waitForFunction(() => /Odile Marrow: \d+ facts/.test(document.querySelector("#status")?.textContent ?? ""));
  const mid = await page.evaluate(() => {
    const e = window.graphmemInspector.cy.getElementById("e:odile|distrusts|halden");
    const box = document.querySelector("#graph").getBoundingClientRect();
    return e.nonempty() ? { x: box.left + e.renderedMidpoint().x, y: box.top + e.renderedMidpoint().y } : null;
  });
  if (mid) {
    await page.mouse.move(mid.x, mid.y);
    await page.locator("#tip:not([hidden])").waitFor();
    seen.tip = await page.locator("#tip").innerText();
  }
  seen.selectedFacts = await page.locator("#facts-of-selected li").allInnerTexts();
  seen.filters = await page.locator("#filters input").evaluateAll((xs) => xs.map((x) => x.id));
  await page.screenshot({ path: join(shots, "world.png") });

  // ------------------------------------------------------------------ the time slider
  step("time");
  const now = await cyEdges();
  seen.nowHasDistrust = now.includes("e:odile|distrusts|halden");
  seen.nowHasTrust = now.includes("e:odile|trusts|halden");
  await page.focus("#time-slider");
  await page.keyboard.press("Home");
  const stops = Number(await page.locator("#time-slider").getAttribute("max"));
  seen.stops = stops;
  for (let i = 0; i < stops; i++) {
    const label = await page.locator("#time-label").textContent();
    const moment = label.split(" (stop")[0];
    await page.waitForFunction((m) => (document.querySelector("#status")?.textContent ?? "").includes(m), moment);
    const edges = await cyEdges();
    if (edges.includes("e:odile|trusts|halden")) {
      seen.pastHasTrust = true;
      seen.pastHasDistrust = edges.includes("e:odile|distrusts|halden");
      seen.pastLabel = label;
      break;
    }
    await page.keyboard.press("ArrowRight");
  }
  await page.screenshot({ path: join(shots, "world-past.png") });
  await page.click("#time-now");
  await page.waitForFunction(() => /The world now/.test(document.querySelector("#status")?.textContent ?? ""));
  seen.backToNowHasDistrust = (await cyEdges()).includes("e:odile|distrusts|halden");

  // ------------------------------------------------------------------ NPC: a false belief
  step("npc");
  await page.keyboard.press("Alt+2");
  await page.fill("#npc-id", "odile");
  await page.press("#npc-id", "Enter");
  await page.waitForFunction(() => /^Odile Marrow: /.test(document.querySelector("#status")?.textContent ?? ""));
  seen.beliefRows = await page.locator("#beliefs tbody tr").evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.innerText.trim())),
  );
  seen.promptHead = (await page.locator("#prompt-text").textContent()).split("\n")[0];
  seen.events = await page.locator("#events li").count();
  await page.locator("#beliefs tbody tr").first().locator("button").click();
  await page.locator("#who-knows li").first().waitFor();
  seen.whoKnows = await page.locator("#who-knows li").allInnerTexts();
  await page.screenshot({ path: join(shots, "npc.png") });
  await page.goto(`${url}/ui/#npc/pip`); // a link to another NPC: the same page, a new view
  await page.waitForFunction(() => /^Pip Nettle: /.test(document.querySelector("#status")?.textContent ?? ""));
  seen.pipBeliefRows = await page.locator("#beliefs tbody tr").evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.innerText.trim())),
  );

  // ------------------------------------------------------------------ Conversations: a fork
  step("conversations");
  await page.keyboard.press("Alt+3");
  await page.locator('#sessions button[data-session="demo-chat"]').click();
  await page.locator("#turn-tree").waitFor();
  seen.forks = await page.locator("#turn-tree .fork-badge").allTextContents();
  seen.heads = await page.locator("#turn-tree .turn.head").count();
  seen.branches = await page.locator("#branches tbody tr").count();
  seen.activeBranches = await page.locator("#branches .head-badge").count();
  seen.branchLabels = await page.locator("#turn-tree .branch-label").allTextContents();
  await page.screenshot({ path: join(shots, "conversations.png") });

  // ------------------------------------------------------------------ Recall: the breakdown
  step("recall");
  await page.keyboard.press("Alt+4");
  await page.fill("#question", "who does Odile Marrow distrust?");
  await page.press("#question", "Enter");
  await page.locator("#recall-results > li").first().waitFor();
  seen.recallKinds = await page.locator("#recall-results > li").evaluateAll((xs) => xs.map((x) => x.dataset.kind));
  seen.signals = await page.locator("#recall-results li[data-signal]").evaluateAll((xs) => [...new Set(xs.map((x) => x.dataset.signal))]);
  seen.graphAnswers = await page.locator("#graph-answers > li > strong").allTextContents();
  seen.graphPath = await page.locator("#graph-answers ol.path li").allInnerTexts();
  await page.screenshot({ path: join(shots, "recall.png") });

  // ------------------------------------------------------------------ Facts & audit
  step("facts");
  await page.keyboard.press("Alt+5");
  await page.locator("#verification").waitFor();
  seen.verification = await page.locator("#verification").innerText();
  seen.governedFacts = await page.locator("#governed-facts tbody tr").evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.innerText.trim())),
  );
  seen.auditEntries = await page.locator("#audit tbody tr").count();
  await page.screenshot({ path: join(shots, "facts.png") });
  step("done");
} catch (error) {
  seen.error = String(error?.stack ?? error);
  const page = browser.pages()[0];
  if (page) {
    seen.statusAtError = await page.locator("#status").textContent().catch(() => null);
    await page.screenshot({ path: join(shots, "error.png") }).catch(() => null);
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(seen));
