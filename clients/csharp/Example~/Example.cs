// The calls a game makes, against a live `graphmem serve`, from an empty tenant:
// an NPC and a fact; a conversation that forks; the snapshot, as data and as prompt text;
// what an NPC believes apart from what is true; a graph question; retrieval; a fact
// invalidated; and the server's errors as typed exceptions.
//
//   mcs -r:System.Net.Http.dll -r:System.Numerics.dll -out:example.exe ../Runtime/*.cs Example.cs
//   GRAPHMEM_URL=http://127.0.0.1:8750 GRAPHMEM_KEY=gmk_... mono example.exe
//
// Prints one JSON object with what it saw (tests/server/test_csharp_client.py reads it).
using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Graphmem;

public static class Example
{
    public static int Main()
    {
        try
        {
            Console.WriteLine(Json.Serialize(Run().GetAwaiter().GetResult()));
            return 0;
        }
        catch (Exception error)
        {
            Console.Error.WriteLine(error);
            return 1;
        }
    }

    private static async Task<Dictionary<string, object>> Run()
    {
        var url = Environment.GetEnvironmentVariable("GRAPHMEM_URL") ?? "http://127.0.0.1:8750";
        var key = Environment.GetEnvironmentVariable("GRAPHMEM_KEY");
        var seen = new Dictionary<string, object>();
        using (var memory = new GraphmemClient(url, key))
        {
            // 1. An NPC, the player, and a fact between them.
            var stored = await memory.UpsertEntities(new[]
            {
                new Entity("odile", "npc", "Odile Marrow", new Dictionary<string, object>
                {
                    { "occupation", "ferrywoman" },
                    { "age", 41 },
                    { "fare", 2.5 },
                    { "routes", new List<object> { "north", "south" } },
                    { "moods", new Dictionary<string, object> { { "calm", true }, { "grudge", null } } },
                }),
                new Entity("kestrel", "player", "Kestrel Vane"),
                new Entity("zoe", "npc", "Zo\u00eb \u00abthe Ferry\u00bb \ud83d\udea3 \"quoted\"\\ \u0001"),
            });
            seen["stored"] = stored.ConvertAll(e => (object)e.Id);
            seen["attributes"] = stored[0].Attributes;
            seen["unicodeName"] = (await memory.GetEntity("zoe")).Name;
            await memory.UpsertRelationships(new[]
            {
                new Relationship("odile", "distrusts", "kestrel", new Provenance { Confidence = 0.7, Source = "inferred" }),
            });

            // 2. A conversation that forks: back to the question, another answer. The session id
            // has a '/' in it: it goes as one path segment.
            const string session = "ferry/1";
            var ask = await memory.AppendTurn(session, "player", "Can you take me across?", speaker: "Kestrel");
            await memory.AppendTurn(session, "npc", "Two coppers.", speaker: "Odile");
            var forked = await memory.Fork(session, ask.Id);
            await memory.AppendTurn(session, new TurnIn("npc", "Not tonight. The river is high.", "Odile", "t-3"));
            var history = await memory.History(session);
            var branches = await memory.Branches(session);
            var head = await memory.Head(session);
            seen["forkedTo"] = forked.Content;
            seen["history"] = history.ConvertAll(t => (object)t.Content);
            seen["branches"] = branches.ConvertAll(b => (object)b.Length);
            seen["activeBranch"] = branches.FindIndex(b => b.Active);
            seen["head"] = new List<object> { head.TurnId, head.SessionId, head.ParentId == ask.Id };
            seen["emptyHead"] = await memory.Head("nothing-said-yet");

            // 3. Who Odile is now, as data and as prompt text within a budget.
            var snapshot = await memory.Snapshot("odile");
            var prompt = await memory.Snapshot("odile", maxTokens: 100);
            seen["npc"] = snapshot.Entity.Name;
            seen["facts"] = snapshot.Relationships.ConvertAll(r => (object)r.ToString());
            seen["factProvenance"] = new List<object>
            {
                snapshot.Relationships[0].Provenance.Confidence, snapshot.Relationships[0].Provenance.Source,
            };
            seen["related"] = snapshot.RelatedEntities.ConvertAll(e => (object)e.Id);
            seen["prompt"] = prompt.Prompt;
            seen["promptTokens"] = prompt.TokenEstimate;

            // 4. Odile saw the boat moored at the north bank; Kestrel moved it while she slept.
            await memory.UpsertEntities(new[]
            {
                new Entity("boat", "item", "the boat"),
                new Entity("north-bank", "location", "the north bank"),
                new Entity("south-bank", "location", "the south bank"),
            });
            var moored = new EventIn("moored", "odile") { Present = new List<string> { "odile", "kestrel" } };
            moored.Changes.Add(new MindFact("boat", "located_in", "north-bank"));
            var mooredEvent = await memory.RecordEvent(moored);
            var moved = new EventIn("moved", "kestrel") { Present = new List<string> { "kestrel" } };
            moved.Changes.Add(new MindFact("boat", "located_in", "south-bank"));
            await memory.RecordEvent(moved);
            seen["mooredWitnesses"] = mooredEvent.Witnesses;
            seen["odileThinksTheBoatIsAt"] = (await memory.Beliefs("odile", about: "boat")).ConvertAll(b => (object)b.Fact.Object);
            var belief = await memory.GetBelief("odile", "boat", "located_in");
            seen["odileBelief"] = new List<object> { belief.Fact.Object, belief.How };
            seen["noBelief"] = await memory.GetBelief("odile", "boat", "owned_by");
            // Kestrel lies to her face that it is still at the north bank; she has no reason to doubt.
            var lie = await memory.Announce("kestrel", new MindFact("boat", "located_in", "north-bank"), audience: new[] { "odile" });
            seen["lieBelievedBy"] = lie.Adopted;
            var nested = await memory.Beliefs("kestrel", about: "boat", of: new[] { "odile" });
            seen["kestrelThinksOdileThinks"] = nested.ConvertAll(b => (object)b.Fact.Object);
            var told = await memory.Tell("kestrel", "odile", new MindFact("kestrel", "owns", "boat"));
            seen["toldOdile"] = told.ConvertAll(b => (object)(b.Fact + " / " + b.How + " / " + b.ToldBy));
            var perspective = await memory.Perspective("odile");
            seen["perspectiveBeliefs"] = perspective.Beliefs.Count;
            seen["odileSees"] = (await memory.Snapshot("odile", maxTokens: 100, perspective: true)).Prompt;

            // 5. A question about the graph, answered by walking its facts; and retrieval.
            var distrusted = await memory.Ask("who does Odile Marrow distrust?", semantic: false);
            seen["odileDistrusts"] = distrusted.Answers.ConvertAll(a => (object)a.Explanation);
            var found = await memory.Retrieve("Odile Marrow", k: 5, maxTokens: 200);
            seen["retrievedKinds"] = found.Results.ConvertAll(r => (object)r.Kind);
            seen["retrievedOdile"] = found.Results.Exists(r => r.Kind == "entity" && r.SourceId == "odile");
            seen["retrieveContext"] = found.Context != null && found.Context.Contains("Odile Marrow");

            // 6. The fact stops holding: kept, with its end, but gone from the snapshot of now.
            var ended = await memory.Invalidate("odile", "distrusts", "kestrel");
            seen["invalidated"] = ended.InvalidAt.HasValue;
            seen["factsAfter"] = (await memory.Snapshot("odile")).Relationships.Count;
            seen["keptFacts"] = (await memory.GetRelationships("odile", includeInvalid: true)).Count;

            // 7. Errors, as typed exceptions.
            seen["missing"] = await Failure(() => memory.Snapshot("nobody"));
            seen["invalid"] = await Failure(() => memory.UpsertEntities(new[] { new Entity("x", "not a type!", "X") }));
            seen["emptyId"] = await Failure(() => memory.GetEntity(""));
            using (var stranger = new GraphmemClient(url, "gmk_not-a-key"))
            {
                seen["wrongKey"] = await Failure(() => stranger.GetEntity("odile"));
            }
            using (var anonymous = new GraphmemClient(url))
            {
                seen["noKey"] = await Failure(() => anonymous.GetEntity("odile"));
            }
            using (var nowhere = new GraphmemClient(Environment.GetEnvironmentVariable("GRAPHMEM_DEAD_URL") ?? "http://127.0.0.1:9"))
            {
                seen["nowhere"] = await Failure(() => nowhere.Snapshot("odile"));
            }
            // A server that takes the connection and never answers: the HttpClient's timeout.
            var silent = Environment.GetEnvironmentVariable("GRAPHMEM_SILENT_URL");
            if (silent != null)
            {
                var impatient = new HttpClient { Timeout = TimeSpan.FromSeconds(1) };
                using (var stuck = new GraphmemClient(silent, key, new HttpClientTransport(impatient, ownsClient: true)))
                {
                    seen["silent"] = await Failure(() => stuck.Snapshot("odile"));
                }
            }
            // A cancelled call is an OperationCanceledException, not a GraphmemException.
            using (var cancel = new CancellationTokenSource())
            {
                cancel.Cancel();
                try
                {
                    await memory.Snapshot("odile", cancellation: cancel.Token);
                    seen["cancelled"] = false;
                }
                catch (OperationCanceledException)
                {
                    seen["cancelled"] = true;
                }
            }
            var raw = await memory.Request("GET", "/counts");
            seen["rawCounts"] = raw;
        }
        return seen;
    }

    /// <summary>How a call failed: the exception's class, its status and title, and its detail.</summary>
    private static async Task<List<object>> Failure(Func<Task> call)
    {
        try
        {
            await call();
        }
        catch (GraphmemException error)
        {
            var notFound = error as NotFoundException;
            return new List<object>
            {
                error.GetType().Name, error.Status, error.Title, error.Detail,
                notFound != null ? notFound.Member("instance") : error.Member("errors"),
            };
        }
        return new List<object> { "no error" };
    }
}
