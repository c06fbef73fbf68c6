// Retrieval (GraphRAG: vector + full text + graph, fused) and graph questions (Ask).
using System;
using System.Collections.Generic;

namespace Graphmem
{
    /// <summary>One retrieved item (an entity, a fact, a turn or a passage) with its provenance.</summary>
    public sealed class ContextResult
    {
        /// <summary>entity, relationship, turn or chunk.</summary>
        public string Kind { get; set; }

        public string SourceId { get; set; }
        public string Content { get; set; }
        public double Score { get; set; }

        /// <summary>The entity the graph walk started from, for a result reached through the graph.</summary>
        public string AnchorEntityId { get; set; }

        public int? Hops { get; set; }
        public Provenance Provenance { get; set; }
        public DateTimeOffset? CreatedAt { get; set; }

        /// <summary>How each retriever scored it (vector, fulltext, graph, ...).</summary>
        public Dictionary<string, object> Signals { get; set; }

        /// <summary>Your turn id, for a turn.</summary>
        public string TurnId { get; set; }

        public DateTimeOffset? ValidAt { get; set; }
        public DateTimeOffset? InvalidAt { get; set; }

        internal static ContextResult Read(object value)
        {
            var data = Fields.Object(value, "result");
            return new ContextResult
            {
                Kind = Fields.String(data, "kind"),
                SourceId = Fields.String(data, "source_id"),
                Content = Fields.String(data, "content"),
                Score = Fields.Double(data, "score", 0.0),
                AnchorEntityId = Fields.OptString(data, "anchor_entity_id"),
                Hops = Fields.OptInt(data, "hops"),
                Provenance = Provenance.Read(Fields.Raw(data, "provenance")),
                CreatedAt = Fields.OptTime(data, "created_at"),
                Signals = Fields.Map(data, "signals"),
                TurnId = Fields.OptString(data, "turn_id"),
                ValidAt = Fields.OptTime(data, "valid_at"),
                InvalidAt = Fields.OptTime(data, "invalid_at"),
            };
        }
    }

    /// <summary>What Retrieve found, best first; Context is prompt text when a budget was asked.</summary>
    public sealed class RetrieveResult
    {
        public List<ContextResult> Results { get; set; }

        /// <summary>The results as prompt text within max_tokens (null without a budget).</summary>
        public string Context { get; set; }

        internal static RetrieveResult Read(object value)
        {
            var data = Fields.Object(value, "retrieve answer");
            return new RetrieveResult
            {
                Results = Fields.List(data, "results", ContextResult.Read),
                Context = Fields.OptString(data, "context"),
            };
        }
    }

    /// <summary>One step of an answer's path: a relationship type and which way it was walked.</summary>
    public sealed class PathStep
    {
        public string Type { get; set; }

        /// <summary>out, in or both.</summary>
        public string Direction { get; set; }

        internal static PathStep Read(object value)
        {
            var data = Fields.Object(value, "path step");
            return new PathStep { Type = Fields.String(data, "type"), Direction = Fields.String(data, "direction") };
        }
    }

    /// <summary>An entity the graph walk reached, with the facts that lead to it.</summary>
    public sealed class GraphAnswer
    {
        public Entity Entity { get; set; }
        public double Score { get; set; }
        public List<PathStep> Path { get; set; }

        /// <summary>The chain of facts from the question's entity to this answer.</summary>
        public List<Relationship> Facts { get; set; }

        public string Topic { get; set; }
        public int Support { get; set; }
        public double TypeFit { get; set; }

        /// <summary>The chain as text: "odile -distrusts-> kestrel".</summary>
        public string Explanation { get; set; }

        internal static GraphAnswer Read(object value)
        {
            var data = Fields.Object(value, "answer");
            return new GraphAnswer
            {
                Entity = Entity.Read(Fields.Raw(data, "entity")),
                Score = Fields.Double(data, "score", 0.0),
                Path = Fields.List(data, "path", PathStep.Read),
                Facts = Fields.List(data, "facts", Relationship.Read),
                Topic = Fields.OptString(data, "topic"),
                Support = Fields.Int(data, "support", 0),
                TypeFit = Fields.Double(data, "type_fit", 0.0),
                Explanation = Fields.OptString(data, "explanation"),
            };
        }
    }

    /// <summary>A name in the question that fits more than one entity.</summary>
    public sealed class Ambiguity
    {
        public string Mention { get; set; }
        public List<string> Candidates { get; set; }

        internal static Ambiguity Read(object value)
        {
            var data = Fields.Object(value, "ambiguity");
            return new Ambiguity { Mention = Fields.String(data, "mention"), Candidates = Fields.Strings(data, "candidates") };
        }
    }

    /// <summary>The answers to a graph question, or why there are none (Abstained, Reason).</summary>
    public sealed class AskResult
    {
        public List<GraphAnswer> Answers { get; set; }
        public double Confidence { get; set; }
        public bool Abstained { get; set; }
        public string Reason { get; set; }
        public List<Ambiguity> Ambiguity { get; set; }

        /// <summary>Parts of the question no path explained.</summary>
        public List<string> Unexplained { get; set; }

        internal static AskResult Read(object value)
        {
            var data = Fields.Object(value, "ask answer");
            return new AskResult
            {
                Answers = Fields.List(data, "answers", GraphAnswer.Read),
                Confidence = Fields.Double(data, "confidence", 0.0),
                Abstained = Fields.Bool(data, "abstained", false),
                Reason = Fields.OptString(data, "reason") ?? "",
                Ambiguity = Fields.List(data, "ambiguity", Graphmem.Ambiguity.Read),
                Unexplained = Fields.Strings(data, "unexplained"),
            };
        }
    }
}
