// The client: one graphmem server, as the one tenant its API key opens.
//
// Every method is one HTTP call (docs/server.md lists the routes) and returns a Task: await it
// from an async method, or from a coroutine with `yield return new WaitUntil(() => task.IsCompleted)`.
// A failed call throws the GraphmemException subclass of the server's error (Errors.cs).
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Graphmem
{
    /// <summary>A typed client of graphmem's HTTP API.</summary>
    public sealed class GraphmemClient : IDisposable
    {
        /// <summary>The version prefix of every API route.</summary>
        public const string ApiPrefix = "/v1";

        private readonly string apiKey;
        private readonly bool ownsTransport;

        /// <summary>The server, e.g. http://127.0.0.1:8750 (without /v1).</summary>
        public string BaseUrl { get; private set; }

        public IGraphmemTransport Transport { get; private set; }

        /// <summary>
        /// A client of the server at <paramref name="baseUrl"/>.
        /// </summary>
        /// <param name="baseUrl">http://host:port of `graphmem serve`.</param>
        /// <param name="apiKey">A key made by `graphmem keys add` (sent as Authorization: Bearer);
        /// null for a server started with --tenant.</param>
        /// <param name="transport">How requests are sent; default UnityWebRequest inside Unity,
        /// HttpClient elsewhere.</param>
        public GraphmemClient(string baseUrl, string apiKey = null, IGraphmemTransport transport = null)
        {
            if (string.IsNullOrEmpty(baseUrl)) throw new ArgumentException("the server's URL, e.g. http://127.0.0.1:8750", "baseUrl");
            BaseUrl = baseUrl.TrimEnd('/');
            this.apiKey = string.IsNullOrEmpty(apiKey) ? null : apiKey;
            if (transport == null)
            {
#if UNITY_5_3_OR_NEWER
                transport = new UnityWebRequestTransport();
#else
                transport = new HttpClientTransport();
#endif
                ownsTransport = true;
            }
            Transport = transport;
        }

        public void Dispose()
        {
            var disposable = Transport as IDisposable;
            if (ownsTransport && disposable != null) disposable.Dispose();
        }

        // ------------------------------------------------------------------ entities

        /// <summary>Insert or replace entities by id, in one batch; the stored entities.</summary>
        public async Task<List<Entity>> UpsertEntities(IEnumerable<Entity> entities, CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("entities", Required(entities, "entities"));
            var answer = await Call("POST", "/entities", body, null, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "entities", Entity.Read);
        }

        /// <summary>One entity; a NotFoundException when there is none.</summary>
        public async Task<Entity> GetEntity(string entityId, CancellationToken cancellation = default(CancellationToken))
        {
            var answer = await Call("GET", "/entities/" + Segment(entityId, "entityId"), null, null, cancellation).ConfigureAwait(false);
            return Entity.Read(answer);
        }

        /// <summary>Entities by type, by a part of the name, or by the whole name (any case).</summary>
        public async Task<List<Entity>> ListEntities(string type = null, string nameContains = null, string name = null, int? limit = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var query = new Members().Add("type", type).Add("name_contains", nameContains).Add("name", name).Add("limit", limit);
            var answer = await Call("GET", "/entities", null, query, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "entities", Entity.Read);
        }

        /// <summary>Change an entity's name, type or attributes (merged; removeAttributes drops some).</summary>
        public async Task<Entity> UpdateEntity(string entityId, string name = null, string type = null,
            IDictionary<string, object> attributes = null, IEnumerable<string> removeAttributes = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("name", name).Add("type", type).Add("attributes", attributes)
                .Add("remove_attributes", removeAttributes);
            var answer = await Call("PATCH", "/entities/" + Segment(entityId, "entityId"), body, null, cancellation).ConfigureAwait(false);
            return Entity.Read(answer);
        }

        /// <summary>Delete an entity and its relationships; how many were deleted (0 or 1).</summary>
        public async Task<int> DeleteEntity(string entityId, CancellationToken cancellation = default(CancellationToken))
        {
            var answer = await Call("DELETE", "/entities/" + Segment(entityId, "entityId"), null, null, cancellation).ConfigureAwait(false);
            return Fields.Int(Fields.Object(answer, "answer"), "deleted", 0);
        }

        // ------------------------------------------------------------------ relationships

        /// <summary>Insert or replace facts between entities, keyed by (source, target, type).</summary>
        public async Task<List<Relationship>> UpsertRelationships(IEnumerable<Relationship> relationships,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("relationships", Required(relationships, "relationships"));
            var answer = await Call("POST", "/relationships", body, null, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "relationships", Relationship.Read);
        }

        /// <summary>An entity's facts: out (default), in or both; of some types; at a world time.</summary>
        public async Task<List<Relationship>> GetRelationships(string entityId, string direction = "out", IEnumerable<string> types = null,
            DateTimeOffset? asOf = null, bool includeInvalid = false, int? limit = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var query = new Members().Add("direction", direction).Add("types", types).Add("as_of", asOf)
                .Add("include_invalid", includeInvalid ? (object)true : null).Add("limit", limit);
            var path = "/entities/" + Segment(entityId, "entityId") + "/relationships";
            var answer = await Call("GET", path, null, query, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "relationships", Relationship.Read);
        }

        /// <summary>
        /// A fact stopped holding (at <paramref name="at"/>, default now): it is kept, with its
        /// invalid_at, for reads at earlier times. The invalidated relationship.
        /// </summary>
        public async Task<Relationship> Invalidate(string sourceId, string type, string targetId, DateTimeOffset? at = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("source_id", sourceId).Add("target_id", targetId).Add("type", type).Add("at", at);
            var answer = await Call("POST", "/relationships/invalidate", body, null, cancellation).ConfigureAwait(false);
            return Relationship.Read(answer);
        }

        // ------------------------------------------------------------------ who an NPC is

        /// <summary>
        /// Who an NPC is: the entity, its facts both ways, their other ends; now, or at world time
        /// <paramref name="asOf"/> and / or as memory stood at <paramref name="recordedAsOf"/>.
        /// </summary>
        public async Task<NpcIdentity> Snapshot(string npcId, DateTimeOffset? asOf = null, DateTimeOffset? recordedAsOf = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var query = Clocks(asOf, recordedAsOf);
            var answer = await Call("GET", "/npcs/" + Segment(npcId, "npcId") + "/snapshot", null, query, cancellation).ConfigureAwait(false);
            return NpcIdentity.Read(answer);
        }

        /// <summary>
        /// The NPC's snapshot as prompt text within <paramref name="maxTokens"/> (the least
        /// important facts dropped first): `await memory.Snapshot("odile", maxTokens: 150)`.
        /// With <paramref name="perspective"/>, what it believes instead of what is true.
        /// </summary>
        public Task<NpcPrompt> Snapshot(string npcId, int maxTokens, bool perspective = false, DateTimeOffset? asOf = null,
            DateTimeOffset? recordedAsOf = null, CancellationToken cancellation = default(CancellationToken))
        {
            return Prompt(npcId, maxTokens, perspective, asOf, recordedAsOf, cancellation);
        }

        /// <summary>The NPC's snapshot as prompt text (within maxTokens when given).</summary>
        public async Task<NpcPrompt> Prompt(string npcId, int? maxTokens = null, bool perspective = false, DateTimeOffset? asOf = null,
            DateTimeOffset? recordedAsOf = null, CancellationToken cancellation = default(CancellationToken))
        {
            var query = Clocks(asOf, recordedAsOf).Add("max_tokens", maxTokens).Add("perspective", perspective ? (object)true : null);
            var answer = await Call("GET", "/npcs/" + Segment(npcId, "npcId") + "/prompt", null, query, cancellation).ConfigureAwait(false);
            return NpcPrompt.Read(answer);
        }

        /// <summary>Who an NPC is as it sees things: its snapshot from its own beliefs, true or not.</summary>
        public async Task<PerspectiveIdentity> Perspective(string npcId, DateTimeOffset? asOf = null, DateTimeOffset? recordedAsOf = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var query = Clocks(asOf, recordedAsOf);
            var answer = await Call("GET", "/npcs/" + Segment(npcId, "npcId") + "/perspective", null, query, cancellation).ConfigureAwait(false);
            return PerspectiveIdentity.Read(answer);
        }

        // ------------------------------------------------------------------ conversations

        /// <summary>Append a turn after the conversation's head; it becomes the head.</summary>
        public async Task<Turn> AppendTurn(string sessionId, TurnIn turn, CancellationToken cancellation = default(CancellationToken))
        {
            var path = "/conversations/" + Segment(sessionId, "sessionId") + "/turns";
            var answer = await Call("POST", path, Required(turn, "turn"), null, cancellation).ConfigureAwait(false);
            return Turn.Read(answer);
        }

        /// <summary>Append a turn: who spoke (role, and speaker when it is not the role) and what was said.</summary>
        public Task<Turn> AppendTurn(string sessionId, string role, string content, string speaker = null, string turnId = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            return AppendTurn(sessionId, new TurnIn(role, content, speaker, turnId), cancellation);
        }

        /// <summary>
        /// Move the head back to an earlier turn (its Id, or the TurnId you gave it): the next
        /// append starts a new branch; the old one is kept.
        /// </summary>
        public async Task<Turn> Fork(string sessionId, string turn, CancellationToken cancellation = default(CancellationToken))
        {
            var path = "/conversations/" + Segment(sessionId, "sessionId") + "/fork";
            var body = new Members().Add("turn", turn);
            var answer = await Call("POST", path, body, null, cancellation).ConfigureAwait(false);
            return Turn.Read(answer);
        }

        /// <summary>The active branch, oldest first (the last <paramref name="limit"/> turns when given).</summary>
        public async Task<List<Turn>> History(string sessionId, int? limit = null, CancellationToken cancellation = default(CancellationToken))
        {
            var path = "/conversations/" + Segment(sessionId, "sessionId") + "/history";
            var query = new Members().Add("limit", limit);
            var answer = await Call("GET", path, null, query, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "turns", Turn.Read);
        }

        /// <summary>The head turn; null for a conversation with no turns.</summary>
        public async Task<Turn> Head(string sessionId, CancellationToken cancellation = default(CancellationToken))
        {
            var path = "/conversations/" + Segment(sessionId, "sessionId") + "/head";
            var answer = await Call("GET", path, null, null, cancellation).ConfigureAwait(false);
            return Turn.Read(Fields.Raw(Fields.Object(answer, "answer"), "turn"));
        }

        /// <summary>Every branch of the conversation: leaf, fork point, length, whether active.</summary>
        public async Task<List<Branch>> Branches(string sessionId, CancellationToken cancellation = default(CancellationToken))
        {
            var path = "/conversations/" + Segment(sessionId, "sessionId") + "/branches";
            var answer = await Call("GET", path, null, null, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "branches", Branch.Read);
        }

        // ------------------------------------------------------------------ retrieval

        /// <summary>
        /// GraphRAG retrieval: vector and full-text search fused, expanded through the graph
        /// (<paramref name="hops"/>, within <paramref name="graphScope"/>), every result with its
        /// provenance; with <paramref name="maxTokens"/>, Context is prompt text within it.
        /// </summary>
        public async Task<RetrieveResult> Retrieve(string query, int? k = null, int? hops = null, IEnumerable<string> graphScope = null,
            IEnumerable<string> kinds = null, IEnumerable<string> relTypes = null, string preset = null, int? maxTokens = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("query", query).Add("k", k).Add("hops", hops).Add("graph_scope", graphScope)
                .Add("kinds", kinds).Add("rel_types", relTypes).Add("preset", preset).Add("max_tokens", maxTokens);
            var answer = await Call("POST", "/retrieve", body, null, cancellation).ConfigureAwait(false);
            return RetrieveResult.Read(answer);
        }

        /// <summary>
        /// A question about the entity graph ("who does Odile distrust?"), answered by a typed
        /// walk with its chain of facts, or abstained from with the reason.
        /// </summary>
        public async Task<AskResult> Ask(string question, int? k = null, int? maxHops = null, bool? semantic = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("question", question).Add("k", k).Add("max_hops", maxHops).Add("semantic", semantic);
            var answer = await Call("POST", "/ask", body, null, cancellation).ConfigureAwait(false);
            return AskResult.Read(answer);
        }

        // ------------------------------------------------------------------ NPC minds

        /// <summary>Something happened: the world changes, and those present believe it.</summary>
        public async Task<WorldEvent> RecordEvent(EventIn worldEvent, CancellationToken cancellation = default(CancellationToken))
        {
            var answer = await Call("POST", "/events", Required(worldEvent, "worldEvent"), null, cancellation).ConfigureAwait(false);
            return WorldEvent.Read(answer);
        }

        /// <summary>
        /// One NPC claims something to another in private (true or a lie): a fact, or everything
        /// it believes <paramref name="about"/> an entity. The listener's beliefs about it afterwards
        /// (its trust policy decides whether it believes the claim).
        /// </summary>
        public async Task<List<Belief>> Tell(string speaker, string listener, MindFact fact = null, string about = null,
            DateTimeOffset? at = null, double? decay = null, double? importance = null, string sessionId = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("speaker", speaker).Add("listener", listener).Add("fact", fact).Add("about", about)
                .Add("at", at).Add("decay", decay).Add("importance", importance).Add("session_id", sessionId);
            var answer = await Call("POST", "/tell", body, null, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "beliefs", Belief.Read);
        }

        /// <summary>
        /// One NPC claims something in public: everyone at the place (or the audience) hears it
        /// and knows the others did. The announced event; its Adopted says who believed it.
        /// </summary>
        public async Task<WorldEvent> Announce(string speaker, MindFact fact, string place = null, IEnumerable<string> audience = null,
            DateTimeOffset? at = null, double? decay = null, double? importance = null, string sessionId = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("speaker", speaker).Add("fact", fact).Add("place", place).Add("audience", audience)
                .Add("at", at).Add("decay", decay).Add("importance", importance).Add("session_id", sessionId);
            var answer = await Call("POST", "/announce", body, null, cancellation).ConfigureAwait(false);
            return WorldEvent.Read(answer);
        }

        /// <summary>
        /// What an NPC believes, oldest first: about an entity, of a predicate; with
        /// <paramref name="of"/>, what it thinks those believe (["b"]: what it thinks b believes);
        /// with <paramref name="history"/>, retired beliefs too; now or at the clocks given.
        /// </summary>
        public async Task<List<Belief>> Beliefs(string npcId, string about = null, IEnumerable<string> of = null, string predicate = null,
            bool history = false, DateTimeOffset? asOf = null, DateTimeOffset? recordedAsOf = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var query = Clocks(asOf, recordedAsOf).Add("about", about).Add("of", of).Add("predicate", predicate)
                .Add("history", history ? (object)true : null);
            var answer = await Call("GET", "/npcs/" + Segment(npcId, "npcId") + "/beliefs", null, query, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "beliefs", Belief.Read);
        }

        /// <summary>The NPC's belief about (subject, predicate[, object]); null when it holds none.</summary>
        public async Task<Belief> GetBelief(string npcId, string subject, string predicate, string @object = null,
            IEnumerable<string> of = null, DateTimeOffset? asOf = null, DateTimeOffset? recordedAsOf = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var query = Clocks(asOf, recordedAsOf).Add("subject", subject).Add("predicate", predicate).Add("object", @object).Add("of", of);
            var answer = await Call("GET", "/npcs/" + Segment(npcId, "npcId") + "/belief", null, query, cancellation).ConfigureAwait(false);
            return Belief.Read(Fields.Raw(Fields.Object(answer, "answer"), "belief"));
        }

        /// <summary>Give an NPC a belief directly (inferred by default; told, rumour, ... with toldBy).</summary>
        public async Task<Belief> Believe(string npcId, MindFact fact, string how = null, double? confidence = null,
            double? importance = null, DateTimeOffset? at = null, string toldBy = null, IEnumerable<string> of = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("fact", fact).Add("how", how).Add("confidence", confidence).Add("importance", importance)
                .Add("at", at).Add("told_by", toldBy).Add("of", of);
            var answer = await Call("POST", "/npcs/" + Segment(npcId, "npcId") + "/beliefs", body, null, cancellation).ConfigureAwait(false);
            return Belief.Read(answer);
        }

        /// <summary>Who believes a fact (each holder's belief), now or at the clocks given.</summary>
        public async Task<List<Belief>> WhoKnows(MindFact fact, DateTimeOffset? asOf = null, DateTimeOffset? recordedAsOf = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var body = new Members().Add("fact", fact).Add("as_of", asOf).Add("recorded_as_of", recordedAsOf);
            var answer = await Call("POST", "/beliefs/who-knows", body, null, cancellation).ConfigureAwait(false);
            return Fields.List(Fields.Object(answer, "answer"), "beliefs", Belief.Read);
        }

        // ------------------------------------------------------------------ any route

        /// <summary>
        /// Any other route of the API (docs/openapi.json), as parsed JSON (Dictionary, List, string,
        /// long, double, bool or null), with the same key and the same typed errors.
        /// </summary>
        /// <param name="method">GET, POST, PATCH, PUT or DELETE.</param>
        /// <param name="path">The path after /v1, its ids already escaped (Uri.EscapeDataString).</param>
        /// <param name="body">Anything the JsonWriter writes (a Dictionary, a model), or null.</param>
        /// <param name="query">Query parameters; a list value repeats its name; nulls are left out.</param>
        public Task<object> Request(string method, string path, object body = null, IDictionary<string, object> query = null,
            CancellationToken cancellation = default(CancellationToken))
        {
            var members = new Members();
            if (query != null) foreach (var item in query) members.Add(item.Key, item.Value);
            return Call(method, path, body, members, cancellation);
        }

        private async Task<object> Call(string method, string path, object body, Members query, CancellationToken cancellation)
        {
            var url = new StringBuilder(BaseUrl).Append(ApiPrefix).Append(path);
            if (query != null) query.AppendQuery(url);
            var headers = new Dictionary<string, string> { { "Accept", "application/json" } };
            if (apiKey != null) headers["Authorization"] = "Bearer " + apiKey;
            byte[] bytes = null;
            if (body != null)
            {
                bytes = Encoding.UTF8.GetBytes(Json.Serialize(body));
                headers["Content-Type"] = "application/json";
            }
            var response = await Transport.Send(new GraphmemRequest(method, url.ToString(), bytes, headers), cancellation)
                .ConfigureAwait(false);
            var text = Encoding.UTF8.GetString(response.Body);
            if (response.Status >= 200 && response.Status < 300)
            {
                try
                {
                    return Json.Parse(text);
                }
                catch (JsonParseException error)
                {
                    throw new GraphmemProtocolException("the answer to " + method + " " + path + " is not JSON: " + error.Message, error);
                }
            }
            Dictionary<string, object> problem = null;
            try
            {
                problem = Json.Parse(text) as Dictionary<string, object>;
            }
            catch (JsonParseException)
            {
                // Not a problem document (a proxy's error page): the status decides below.
            }
            if (problem != null && problem.ContainsKey("title")) throw GraphmemException.FromProblem(response.Status, problem);
            throw GraphmemException.FromStatus(response.Status, text);
        }

        private static Members Clocks(DateTimeOffset? asOf, DateTimeOffset? recordedAsOf)
        {
            return new Members().Add("as_of", asOf).Add("recorded_as_of", recordedAsOf);
        }

        /// <summary>An id as one path segment: percent-encoded ('/' too); empty is refused here.</summary>
        private static string Segment(string id, string what)
        {
            if (string.IsNullOrEmpty(id))
                throw new InvalidInputException(0, "InvalidInput", what + " is empty: give the id", null);
            return Uri.EscapeDataString(id);
        }

        private static T Required<T>(T value, string what) where T : class
        {
            if (value == null) throw new InvalidInputException(0, "InvalidInput", what + " is null", null);
            return value;
        }

        /// <summary>Named values for a JSON body or a query string; null values are left out.</summary>
        private sealed class Members : IJsonWritable
        {
            private readonly List<KeyValuePair<string, object>> items = new List<KeyValuePair<string, object>>();

            public Members Add(string name, object value)
            {
                if (value != null) items.Add(new KeyValuePair<string, object>(name, value));
                return this;
            }

            public void WriteJson(JsonWriter writer)
            {
                writer.BeginObject();
                foreach (var item in items) writer.Key(item.Key).Value(item.Value);
                writer.EndObject();
            }

            public void AppendQuery(StringBuilder url)
            {
                var separator = '?';
                foreach (var item in items)
                {
                    var many = item.Value as IEnumerable;
                    if (many != null && !(item.Value is string))
                    {
                        foreach (var one in many)
                        {
                            url.Append(separator).Append(Uri.EscapeDataString(item.Key)).Append('=').Append(Uri.EscapeDataString(Text(one)));
                            separator = '&';
                        }
                        continue;
                    }
                    url.Append(separator).Append(Uri.EscapeDataString(item.Key)).Append('=').Append(Uri.EscapeDataString(Text(item.Value)));
                    separator = '&';
                }
            }

            private static string Text(object value)
            {
                if (value == null) return "";
                if (value is bool) return (bool)value ? "true" : "false";
                if (value is DateTimeOffset) return Iso.Format((DateTimeOffset)value);
                if (value is DateTime) return Iso.Format((DateTime)value);
                var formattable = value as IFormattable;
                if (formattable != null) return formattable.ToString(null, CultureInfo.InvariantCulture);
                return value.ToString();
            }
        }
    }
}
