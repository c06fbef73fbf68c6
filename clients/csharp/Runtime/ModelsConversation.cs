// Conversations: a tree of turns; its active branch runs from the head back to the root,
// and a fork moves the head back to an earlier turn (the next append starts a new branch).
using System;
using System.Collections.Generic;

namespace Graphmem
{
    /// <summary>A turn to append.</summary>
    public sealed class TurnIn : IJsonWritable
    {
        /// <summary>player, npc, user, assistant, system, narrator, ...</summary>
        public string Role { get; set; }

        public string Content { get; set; }

        /// <summary>Who said it (a name or an entity id), if not the role.</summary>
        public string Speaker { get; set; }

        /// <summary>Your own id for the turn (fork to it later by this id).</summary>
        public string TurnId { get; set; }

        public string Summary { get; set; }

        public TurnIn()
        {
        }

        public TurnIn(string role, string content, string speaker = null, string turnId = null)
        {
            Role = role;
            Content = content;
            Speaker = speaker;
            TurnId = turnId;
        }

        public void WriteJson(JsonWriter writer)
        {
            writer.BeginObject()
                .Field("role", Role)
                .Field("content", Content)
                .Field("speaker", Speaker)
                .Field("turn_id", TurnId)
                .Field("summary", Summary)
                .EndObject();
        }
    }

    /// <summary>One conversation entry, as stored.</summary>
    public sealed class Turn
    {
        /// <summary>The server's id of the turn.</summary>
        public string Id { get; set; }

        /// <summary>The turn before it on its branch (null for the first).</summary>
        public string ParentId { get; set; }

        public string SessionId { get; set; }
        public string Role { get; set; }
        public string Speaker { get; set; }
        public string Content { get; set; }
        public string Summary { get; set; }

        /// <summary>Your id for it, when you gave one.</summary>
        public string TurnId { get; set; }

        public DateTimeOffset CreatedAt { get; set; }

        /// <summary>The JSON object the server sent (trajectory and artifacts are there).</summary>
        public Dictionary<string, object> Raw { get; private set; }

        internal static Turn Read(object value)
        {
            if (value == null) return null;
            var data = Fields.Object(value, "turn");
            return new Turn
            {
                Id = Fields.String(data, "id"),
                ParentId = Fields.OptString(data, "parent_id"),
                SessionId = Fields.String(data, "session_id"),
                Role = Fields.String(data, "role"),
                Speaker = Fields.OptString(data, "speaker"),
                Content = Fields.String(data, "content"),
                Summary = Fields.OptString(data, "summary"),
                TurnId = Fields.OptString(data, "turn_id"),
                CreatedAt = Fields.Time(data, "created_at"),
                Raw = data,
            };
        }

        public override string ToString()
        {
            return (Speaker ?? Role) + ": " + Content;
        }
    }

    /// <summary>One branch of a conversation tree.</summary>
    public sealed class Branch
    {
        /// <summary>Its last turn.</summary>
        public Turn Leaf { get; set; }

        /// <summary>Where it leaves another branch (null for the first branch).</summary>
        public Turn ForkPoint { get; set; }

        /// <summary>How many turns, root to leaf.</summary>
        public int Length { get; set; }

        /// <summary>Whether the head is on it.</summary>
        public bool Active { get; set; }

        internal static Branch Read(object value)
        {
            var data = Fields.Object(value, "branch");
            return new Branch
            {
                Leaf = Turn.Read(Fields.Raw(data, "leaf")),
                ForkPoint = Turn.Read(Fields.Raw(data, "fork_point")),
                Length = Fields.Int(data, "length", 0),
                Active = Fields.Bool(data, "active", false),
            };
        }
    }
}
