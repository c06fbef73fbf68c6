// Reading the server's answers member by member, with a clear error when one is not what the
// API promises (a server of another version, a proxy's page): a GraphmemProtocolException.
using System;
using System.Collections.Generic;
using System.Globalization;

namespace Graphmem
{
    /// <summary>ISO 8601 times, as the server reads and writes them (a naive time is UTC).</summary>
    public static class Iso
    {
        /// <summary>UTC, to the microsecond (Python's precision): 2024-05-01T12:00:00.000000Z.</summary>
        public static string Format(DateTimeOffset value)
        {
            return value.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.ffffff'Z'", CultureInfo.InvariantCulture);
        }

        /// <summary>A DateTime of unspecified kind is taken as UTC, as the server takes a naive time.</summary>
        public static string Format(DateTime value)
        {
            if (value.Kind == DateTimeKind.Unspecified) value = DateTime.SpecifyKind(value, DateTimeKind.Utc);
            return Format(new DateTimeOffset(value.ToUniversalTime()));
        }

        /// <summary>The time of an ISO 8601 text; a FormatException when it is not one.</summary>
        public static DateTimeOffset Parse(string text)
        {
            DateTimeOffset value;
            if (!DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture,
                    DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal, out value))
                throw new FormatException("not an ISO 8601 time: '" + text + "'");
            return value;
        }
    }

    /// <summary>Members of a parsed JSON object, each checked against what the API promises.</summary>
    internal static class Fields
    {
        public static Dictionary<string, object> Object(object value, string what)
        {
            var result = value as Dictionary<string, object>;
            if (result == null) throw Wrong(what, "an object", value);
            return result;
        }

        public static bool Has(Dictionary<string, object> data, string key)
        {
            object value;
            return data.TryGetValue(key, out value) && value != null;
        }

        public static object Raw(Dictionary<string, object> data, string key)
        {
            object value;
            return data.TryGetValue(key, out value) ? value : null;
        }

        public static string String(Dictionary<string, object> data, string key)
        {
            var value = Raw(data, key);
            var text = value as string;
            if (text == null) throw Wrong(key, "a string", value);
            return text;
        }

        public static string OptString(Dictionary<string, object> data, string key)
        {
            var value = Raw(data, key);
            if (value == null) return null;
            var text = value as string;
            if (text == null) throw Wrong(key, "a string or null", value);
            return text;
        }

        public static double Double(Dictionary<string, object> data, string key, double fallback)
        {
            var value = Raw(data, key);
            if (value == null) return fallback;
            if (value is long) return (long)value;
            if (value is double) return (double)value;
            throw Wrong(key, "a number", value);
        }

        public static int Int(Dictionary<string, object> data, string key, int fallback)
        {
            var value = Raw(data, key);
            if (value == null) return fallback;
            if (value is long && (long)value >= int.MinValue && (long)value <= int.MaxValue) return (int)(long)value;
            throw Wrong(key, "an integer", value);
        }

        public static int? OptInt(Dictionary<string, object> data, string key)
        {
            return Has(data, key) ? Int(data, key, 0) : (int?)null;
        }

        public static bool Bool(Dictionary<string, object> data, string key, bool fallback)
        {
            var value = Raw(data, key);
            if (value == null) return fallback;
            if (value is bool) return (bool)value;
            throw Wrong(key, "true or false", value);
        }

        public static DateTimeOffset Time(Dictionary<string, object> data, string key)
        {
            var time = OptTime(data, key);
            if (time == null) throw Wrong(key, "a time", null);
            return time.Value;
        }

        public static DateTimeOffset? OptTime(Dictionary<string, object> data, string key)
        {
            var text = OptString(data, key);
            if (text == null) return null;
            try
            {
                return Iso.Parse(text);
            }
            catch (FormatException error)
            {
                throw new GraphmemProtocolException("'" + key + "' in the server's answer: " + error.Message, error);
            }
        }

        /// <summary>A JSON object member (attributes, signals) as a dictionary; empty when absent.</summary>
        public static Dictionary<string, object> Map(Dictionary<string, object> data, string key)
        {
            var value = Raw(data, key);
            if (value == null) return new Dictionary<string, object>();
            return Object(value, key);
        }

        public static List<object> Array(Dictionary<string, object> data, string key)
        {
            var value = Raw(data, key);
            if (value == null) return new List<object>();
            var items = value as List<object>;
            if (items == null) throw Wrong(key, "an array", value);
            return items;
        }

        public static List<T> List<T>(Dictionary<string, object> data, string key, Func<object, T> read)
        {
            var items = Array(data, key);
            var result = new List<T>(items.Count);
            foreach (var item in items) result.Add(read(item));
            return result;
        }

        public static List<string> Strings(Dictionary<string, object> data, string key)
        {
            return StringList(Raw(data, key), key);
        }

        /// <summary>An array of strings (null: empty).</summary>
        public static List<string> StringList(object value, string what)
        {
            if (value == null) return new List<string>();
            var items = value as List<object>;
            if (items == null) throw Wrong(what, "an array of strings", value);
            var result = new List<string>(items.Count);
            foreach (var item in items)
            {
                var text = item as string;
                if (text == null) throw Wrong(what, "an array of strings", item);
                result.Add(text);
            }
            return result;
        }

        public static GraphmemProtocolException Wrong(string what, string expected, object value)
        {
            var seen = value == null ? "nothing" : value is string ? "a string" : value.GetType().Name;
            return new GraphmemProtocolException(
                "the server's answer has " + seen + " for '" + what + "', not " + expected
                + ": is the server a graphmem of this client's version?");
        }
    }
}
