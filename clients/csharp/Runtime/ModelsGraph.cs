// The entity graph: entities, the facts between them (relationships, with provenance and
// both clocks), and who an NPC is (its snapshot, as data or as prompt text).
//
// Each model reads itself from the server's JSON (Read) and, when it is sent, writes itself
// (WriteJson), member by member: no reflection, so IL2CPP strips nothing it needs.
using System;
using System.Collections.Generic;

namespace Graphmem
{
    /// <summary>A node of the world: an NPC, the player, a place, an item, a faction, ...</summary>
    public sealed class Entity : IJsonWritable
    {
        /// <summary>Your id for it (unique in the tenant).</summary>
        public string Id { get; set; }

        /// <summary>npc, player, location, item, faction, event, quest, concept, or your own safe name.</summary>
        public string Type { get; set; }

        public string Name { get; set; }

        /// <summary>Free JSON attributes: string, bool, number, null, lists and dictionaries of them.</summary>
        public Dictionary<string, object> Attributes { get; set; }

        /// <summary>Set by the server (leave null when you send one).</summary>
        public DateTimeOffset? CreatedAt { get; set; }

        public DateTimeOffset? UpdatedAt { get; set; }

        /// <summary>The JSON object the server sent (members this client does not type are there).</summary>
        public Dictionary<string, object> Raw { get; private set; }

        public Entity()
        {
            Attributes = new Dictionary<string, object>();
        }

        public Entity(string id, string type, string name, Dictionary<string, object> attributes = null)
        {
            Id = id;
            Type = type;
            Name = name;
            Attributes = attributes ?? new Dictionary<string, object>();
        }

        public void WriteJson(JsonWriter writer)
        {
            writer.BeginObject()
                .Field("id", Id)
                .Field("type", Type)
                .Field("name", Name)
                .Field("attributes", Attributes)
                .Field("created_at", CreatedAt)
                .Field("updated_at", UpdatedAt)
                .EndObject();
        }

        internal static Entity Read(object value)
        {
            var data = Fields.Object(value, "entity");
            return new Entity
            {
                Id = Fields.String(data, "id"),
                Type = Fields.String(data, "type"),
                Name = Fields.String(data, "name"),
                Attributes = Fields.Map(data, "attributes"),
                CreatedAt = Fields.OptTime(data, "created_at"),
                UpdatedAt = Fields.OptTime(data, "updated_at"),
                Raw = data,
            };
        }

        public override string ToString()
        {
            return Name + " (" + Type + ", " + Id + ")";
        }
    }

    /// <summary>Where a fact came from and how sure we are of it.</summary>
    public sealed class Provenance : IJsonWritable
    {
        public string SessionId { get; set; }

        /// <summary>0..1 (default 1).</summary>
        public double Confidence { get; set; }

        /// <summary>stated, inferred, imported, ... (default stated).</summary>
        public string Source { get; set; }

        /// <summary>A game master or operator validated it.</summary>
        public bool Confirmed { get; set; }

        /// <summary>Turn or chunk ids that support it.</summary>
        public List<string> Evidence { get; set; }

        public Provenance()
        {
            Confidence = 1.0;
            Source = "stated";
            Evidence = new List<string>();
        }

        public void WriteJson(JsonWriter writer)
        {
            writer.BeginObject()
                .Field("session_id", SessionId)
                .Field("confidence", Confidence)
                .Field("source", Source)
                .Field("confirmed", Confirmed)
                .Field("evidence", Evidence)
                .EndObject();
        }

        internal static Provenance Read(object value)
        {
            if (value == null) return null;
            var data = Fields.Object(value, "provenance");
            return new Provenance
            {
                SessionId = Fields.OptString(data, "session_id"),
                Confidence = Fields.Double(data, "confidence", 1.0),
                Source = Fields.OptString(data, "source") ?? "stated",
                Confirmed = Fields.Bool(data, "confirmed", false),
                Evidence = Fields.Strings(data, "evidence"),
            };
        }
    }

    /// <summary>
    /// A fact between two entities: (source)-[type]->(target), with provenance and both clocks
    /// (ValidAt / InvalidAt: when it held in the world; CreatedAt / ExpiredAt: when memory learnt
    /// it / stopped believing it).
    /// </summary>
    public sealed class Relationship : IJsonWritable
    {
        public string SourceId { get; set; }
        public string TargetId { get; set; }

        /// <summary>knows, hates, owns, member_of, located_in, ... (a safe name).</summary>
        public string Type { get; set; }

        public Dictionary<string, object> Attributes { get; set; }

        /// <summary>Null when sent: the server's default (stated, confidence 1).</summary>
        public Provenance Provenance { get; set; }

        public DateTimeOffset? ValidAt { get; set; }
        public DateTimeOffset? InvalidAt { get; set; }
        public DateTimeOffset? CreatedAt { get; set; }
        public DateTimeOffset? ExpiredAt { get; set; }

        public Dictionary<string, object> Raw { get; private set; }

        public Relationship()
        {
            Attributes = new Dictionary<string, object>();
        }

        public Relationship(string sourceId, string type, string targetId, Provenance provenance = null)
            : this()
        {
            SourceId = sourceId;
            Type = type;
            TargetId = targetId;
            Provenance = provenance;
        }

        public void WriteJson(JsonWriter writer)
        {
            writer.BeginObject()
                .Field("source_id", SourceId)
                .Field("target_id", TargetId)
                .Field("type", Type)
                .Field("attributes", Attributes)
                .Field("provenance", Provenance)
                .Field("valid_at", ValidAt)
                .Field("invalid_at", InvalidAt)
                .Field("created_at", CreatedAt)
                .Field("expired_at", ExpiredAt)
                .EndObject();
        }

        internal static Relationship Read(object value)
        {
            var data = Fields.Object(value, "relationship");
            return new Relationship
            {
                SourceId = Fields.String(data, "source_id"),
                TargetId = Fields.String(data, "target_id"),
                Type = Fields.String(data, "type"),
                Attributes = Fields.Map(data, "attributes"),
                Provenance = Provenance.Read(Fields.Raw(data, "provenance")),
                ValidAt = Fields.OptTime(data, "valid_at"),
                InvalidAt = Fields.OptTime(data, "invalid_at"),
                CreatedAt = Fields.OptTime(data, "created_at"),
                ExpiredAt = Fields.OptTime(data, "expired_at"),
                Raw = data,
            };
        }

        public override string ToString()
        {
            return SourceId + " -" + Type + "-> " + TargetId;
        }
    }

    /// <summary>Who an NPC is: the entity, its facts both ways, their other ends.</summary>
    public class NpcIdentity
    {
        public Entity Entity { get; set; }
        public List<Relationship> Relationships { get; set; }
        public List<Entity> RelatedEntities { get; set; }
        public Dictionary<string, object> Raw { get; protected set; }

        internal static NpcIdentity Read(object value)
        {
            var result = new NpcIdentity();
            result.Fill(Fields.Object(value, "snapshot"));
            return result;
        }

        protected void Fill(Dictionary<string, object> data)
        {
            Entity = Entity.Read(Fields.Raw(data, "entity"));
            Relationships = Fields.List(data, "relationships", Relationship.Read);
            RelatedEntities = Fields.List(data, "related_entities", Entity.Read);
            Raw = data;
        }
    }

    /// <summary>Who an NPC is as it sees things: its snapshot built from its own beliefs.</summary>
    public sealed class PerspectiveIdentity : NpcIdentity
    {
        public List<Belief> Beliefs { get; set; }

        internal static new PerspectiveIdentity Read(object value)
        {
            var data = Fields.Object(value, "perspective");
            var result = new PerspectiveIdentity();
            result.Fill(data);
            result.Beliefs = Fields.List(data, "beliefs", Belief.Read);
            return result;
        }
    }

    /// <summary>An NPC's snapshot as prompt text for an LLM, within a token budget.</summary>
    public sealed class NpcPrompt
    {
        public string NpcId { get; set; }
        public string Prompt { get; set; }
        public int TokenEstimate { get; set; }

        internal static NpcPrompt Read(object value)
        {
            var data = Fields.Object(value, "prompt");
            return new NpcPrompt
            {
                NpcId = Fields.String(data, "npc_id"),
                Prompt = Fields.String(data, "prompt"),
                TokenEstimate = Fields.Int(data, "token_estimate", 0),
            };
        }

        /// <summary>The prompt text.</summary>
        public override string ToString()
        {
            return Prompt;
        }
    }
}
