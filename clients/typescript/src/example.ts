/**
 * The three calls a game makes, against a live `graphmem serve`:
 * create an NPC and a fact, append and fork a conversation, read the snapshot;
 * then what an NPC believes, apart from what is true, and a question about the graph.
 *
 *   GRAPHMEM_URL=http://127.0.0.1:8750 GRAPHMEM_KEY=gmk_... node dist/example.js
 *
 * Prints one JSON object with what it saw.
 */
import { GraphmemClient, GraphmemError } from "./client.js";

const url = process.env["GRAPHMEM_URL"] ?? "http://127.0.0.1:8750";
const key = process.env["GRAPHMEM_KEY"];
const memory = new GraphmemClient(url, key ? { apiKey: key } : {});

// 1. An NPC, the player, and a fact between them.
await memory.upsertEntities([
  { id: "odile", type: "npc", name: "Odile Marrow", attributes: { occupation: "ferrywoman" } },
  { id: "kestrel", type: "player", name: "Kestrel Vane" },
]);
await memory.upsertRelationships([
  {
    source_id: "odile",
    target_id: "kestrel",
    type: "distrusts",
    provenance: { confidence: 0.7, source: "inferred" },
  },
]);

// 2. A conversation that forks: back to the question, another answer.
const ask = await memory.appendTurn("ferry-1", {
  role: "player",
  content: "Can you take me across?",
  speaker: "Kestrel",
});
await memory.appendTurn("ferry-1", { role: "npc", content: "Two coppers.", speaker: "Odile" });
await memory.fork("ferry-1", ask.id);
await memory.appendTurn("ferry-1", {
  role: "npc",
  content: "Not tonight. The river is high.",
  speaker: "Odile",
});

// 3. Who Odile is now, as data and as prompt text.
const snapshot = await memory.snapshot("odile");
const prompt = await memory.prompt("odile", 100);
const history = await memory.history("ferry-1");
const branches = await memory.branches("ferry-1");

// 4. Odile saw the boat moored at the north bank; Kestrel moved it while she slept.
await memory.upsertEntities([
  { id: "boat", type: "item", name: "the boat" },
  { id: "north-bank", type: "location", name: "the north bank" },
  { id: "south-bank", type: "location", name: "the south bank" },
]);
await memory.recordEvent({
  type: "moored",
  actor: "odile",
  changes: [{ subject: "boat", predicate: "located_in", object: "north-bank" }],
  present: ["odile", "kestrel"],
});
await memory.recordEvent({
  type: "moved",
  actor: "kestrel",
  changes: [{ subject: "boat", predicate: "located_in", object: "south-bank" }],
  present: ["kestrel"],
});
const believed = await memory.beliefs("odile", { about: "boat" });
// Kestrel lies to her face that it is still at the north bank; she has no reason to doubt.
const lie = await memory.announce({
  speaker: "kestrel",
  fact: { subject: "boat", predicate: "located_in", object: "north-bank" },
  audience: ["odile"],
});
const kestrelThinks = await memory.beliefs("kestrel", { about: "boat", of: ["odile"] });
// Beside the truth: the world has the boat at the south bank, so her belief is false.
const checked = await memory.checkBeliefs("odile");
const around = await memory.neighborhood("boat");
// 5. A question about the graph, answered by walking its facts.
const distrusted = await memory.ask({ question: "who does Odile Marrow distrust?", semantic: false });
const seen = await memory.prompt("odile", 100, { perspective: true });

let missing = "";
try {
  await memory.snapshot("nobody");
} catch (error) {
  if (error instanceof GraphmemError) missing = `${error.status} ${error.problem.title}`;
}

console.log(
  JSON.stringify({
    npc: snapshot.entity.name,
    facts: snapshot.relationships.map((r) => `${r.source_id} ${r.type} ${r.target_id}`),
    prompt: prompt.prompt,
    history: history.map((t) => t.content),
    branches: branches.map((b) => b.length),
    odileThinksTheBoatIsAt: believed.map((b) => b.fact.object),
    lieBelievedBy: lie.adopted,
    kestrelThinksOdileThinks: kestrelThinks.map((b) => b.fact.object),
    odileIsWrong: checked.filter((c) => !c.agrees).map((c) => [c.belief.fact.object, c.truth]),
    boatIsAt: around.relationships.map((r) => `${r.type} ${r.target_id}`),
    odileSees: seen.prompt,
    odileDistrusts: distrusted.map((a) => a.explanation),
    missing,
  }),
);
