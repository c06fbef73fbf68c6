// NPC minds: what is true (the world) and, beside it, what each NPC believes, how it came by
// it (witnessed, told, announced, inferred) and how sure it is.
using System;
using System.Collections.Generic;

namespace Graphmem
{
    /// <summary>
    /// A statement about the world: (subject, predicate, object), or a value
    /// (subject, predicate, value); Holds = false says it is not so.
    /// </summary>
    public sealed class MindFact : IJsonWritable
    {
        public string Subject { get; set; }
        public string Predicate { get; set; }

        /// <summary>An entity id (null for a value fact).</summary>
        public string Object { get; set; }

        /// <summary>A string, bool, long or double (null for an entity fact).</summary>
        public object Value { get; set; }

        public bool Holds { get; set; }

        public MindFact()
        {
            Holds = true;
        }

        public MindFact(string subject, string predicate, string @object = null)
            : this()
        {
            Subject = subject;
            Predicate = predicate;
            Object = @object;
        }

        public void WriteJson(JsonWriter writer)
        {
            writer.BeginObject()
                .Field("subject", Subject)
                .Field("predicate", Predicate)
                .Field("object", Object)
                .Field("value", Value)
                .Field("holds", Holds)
                .EndObject();
        }

        internal static MindFact Read(object value)
        {
            var data = Fields.Object(value, "fact");
            return new MindFact
            {
                Subject = Fields.String(data, "subject"),
                Predicate = Fields.String(data, "predicate"),
                Object = Fields.OptString(data, "object"),
                Value = Fields.Raw(data, "value"),
                Holds = Fields.Bool(data, "holds", true),
            };
        }

        public override string ToString()
        {
            var what = Object ?? (Value == null ? "null" : Json.Serialize(Value));
            return (Holds ? "" : "not ") + Subject + " " + Predicate + " " + what;
        }
    }

    /// <summary>Something that happened: what it changed, and who was there to see it.</summary>
    public sealed class EventIn : IJsonWritable
    {
        /// <summary>A safe name: moved, moored, stole, ...</summary>
        public string Type { get; set; }

        public string Actor { get; set; }
        public List<string> Participants { get; set; }

        /// <summary>Where (an entity id); everyone there witnesses it unless Present says who.</summary>
        public string Place { get; set; }

        /// <summary>What became true (or, with Holds = false, stopped being true).</summary>
        public List<MindFact> Changes { get; set; }

        /// <summary>What the witnesses learn without it changing.</summary>
        public List<MindFact> Reveals { get; set; }

        /// <summary>Who witnessed it (null: the actor, the participants and whoever is at the place).</summary>
        public List<string> Present { get; set; }

        /// <summary>World time (default now).</summary>
        public DateTimeOffset? At { get; set; }

        /// <summary>0..1 (default 0.5).</summary>
        public double? Importance { get; set; }

        public string SessionId { get; set; }
        public string Summary { get; set; }
        public Dictionary<string, object> Attributes { get; set; }

        /// <summary>Your id for it (recording it again with the same id is a no-op).</summary>
        public string EventId { get; set; }

        public EventIn()
        {
            Participants = new List<string>();
            Changes = new List<MindFact>();
            Reveals = new List<MindFact>();
        }

        public EventIn(string type, string actor = null)
            : this()
        {
            Type = type;
            Actor = actor;
        }

        public void WriteJson(JsonWriter writer)
        {
            writer.BeginObject()
                .Field("type", Type)
                .Field("actor", Actor)
                .Field("participants", Participants)
                .Field("place", Place)
                .Field("changes", Changes)
                .Field("reveals", Reveals)
                .Field("present", Present)
                .Field("at", At)
                .Field("importance", Importance)
                .Field("session_id", SessionId)
                .Field("summary", Summary)
                .Field("attributes", Attributes)
                .Field("event_id", EventId)
                .EndObject();
        }
    }

    /// <summary>An event as stored: who witnessed it, what it changed, claimed and revealed.</summary>
    public sealed class WorldEvent
    {
        public string Id { get; set; }
        public string Type { get; set; }
        public DateTimeOffset At { get; set; }
        public string Place { get; set; }
        public string Actor { get; set; }
        public List<string> Participants { get; set; }
        public List<string> Witnesses { get; set; }
        public List<MindFact> Changes { get; set; }
        public List<MindFact> Reveals { get; set; }

        /// <summary>What a speaker claimed (tell, announce): true or not.</summary>
        public List<MindFact> Claims { get; set; }

        /// <summary>For each claim, who believed it.</summary>
        public List<List<string>> Adopted { get; set; }

        public double Importance { get; set; }
        public string SessionId { get; set; }
        public string Summary { get; set; }
        public Dictionary<string, object> Attributes { get; set; }

        /// <summary>Memory time: when it was recorded.</summary>
        public DateTimeOffset RecordedAt { get; set; }

        internal static WorldEvent Read(object value)
        {
            var data = Fields.Object(value, "event");
            return new WorldEvent
            {
                Id = Fields.String(data, "id"),
                Type = Fields.String(data, "type"),
                At = Fields.Time(data, "at"),
                Place = Fields.OptString(data, "place"),
                Actor = Fields.OptString(data, "actor"),
                Participants = Fields.Strings(data, "participants"),
                Witnesses = Fields.Strings(data, "witnesses"),
                Changes = Fields.List(data, "changes", MindFact.Read),
                Reveals = Fields.List(data, "reveals", MindFact.Read),
                Claims = Fields.List(data, "claims", MindFact.Read),
                Adopted = Fields.List(data, "adopted", item => Fields.StringList(item, "adopted")),
                Importance = Fields.Double(data, "importance", 0.5),
                SessionId = Fields.OptString(data, "session_id"),
                Summary = Fields.OptString(data, "summary"),
                Attributes = Fields.Map(data, "attributes"),
                RecordedAt = Fields.Time(data, "recorded_at"),
            };
        }
    }

    /// <summary>What one NPC believes (or, with a Chain, thinks others believe), and why.</summary>
    public sealed class Belief
    {
        public string Id { get; set; }

        /// <summary>The NPC who holds it.</summary>
        public string Holder { get; set; }

        /// <summary>Nested belief: ["b"] is what Holder thinks b believes.</summary>
        public List<string> Chain { get; set; }

        public MindFact Fact { get; set; }

        /// <summary>witnessed, told, announced, inferred, rumour, ...</summary>
        public string How { get; set; }

        public string ToldBy { get; set; }
        public List<string> Sources { get; set; }
        public string EventId { get; set; }
        public double Confidence { get; set; }
        public double Importance { get; set; }

        /// <summary>World time from which it is believed to hold ...</summary>
        public DateTimeOffset ValidFrom { get; set; }

        /// <summary>... and until when (null: still).</summary>
        public DateTimeOffset? ValidTo { get; set; }

        public DateTimeOffset RecordedAt { get; set; }

        /// <summary>Memory time it was given up (null: still held), and why.</summary>
        public DateTimeOffset? RetiredAt { get; set; }

        public string RetiredBecause { get; set; }
        public DateTimeOffset? LastRecalledAt { get; set; }
        public int RecallCount { get; set; }

        internal static Belief Read(object value)
        {
            if (value == null) return null;
            var data = Fields.Object(value, "belief");
            return new Belief
            {
                Id = Fields.String(data, "id"),
                Holder = Fields.String(data, "holder"),
                Chain = Fields.Strings(data, "chain"),
                Fact = MindFact.Read(Fields.Raw(data, "fact")),
                How = Fields.String(data, "how"),
                ToldBy = Fields.OptString(data, "told_by"),
                Sources = Fields.Strings(data, "sources"),
                EventId = Fields.OptString(data, "event_id"),
                Confidence = Fields.Double(data, "confidence", 1.0),
                Importance = Fields.Double(data, "importance", 0.5),
                ValidFrom = Fields.Time(data, "valid_from"),
                ValidTo = Fields.OptTime(data, "valid_to"),
                RecordedAt = Fields.Time(data, "recorded_at"),
                RetiredAt = Fields.OptTime(data, "retired_at"),
                RetiredBecause = Fields.OptString(data, "retired_because"),
                LastRecalledAt = Fields.OptTime(data, "last_recalled_at"),
                RecallCount = Fields.Int(data, "recall_count", 0),
            };
        }

        public override string ToString()
        {
            var chain = Chain.Count == 0 ? "" : " thinks " + string.Join(" thinks ", Chain.ToArray());
            return Holder + chain + " believes " + Fact + " (" + How + ")";
        }
    }
}
