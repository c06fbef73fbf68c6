// A small JSON reader and writer with no reflection, so IL2CPP's code stripping cannot break
// it: every model reads and writes itself field by field (see Models*.cs).
//
// Parsed values are plain objects: null, bool, string, long (an integer that fits), double,
// List<object> (an array) and Dictionary<string, object> (an object; the last of duplicate
// keys wins, as in Python). The writer takes those, the other numeric types, DateTime and
// DateTimeOffset (ISO 8601), any IDictionary with string keys, any IEnumerable, and every
// IJsonWritable (the models).
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Numerics;
using System.Text;

namespace Graphmem
{
    /// <summary>A value that writes itself as JSON (every request model does).</summary>
    public interface IJsonWritable
    {
        /// <summary>Append this value as one JSON value.</summary>
        void WriteJson(JsonWriter writer);
    }

    /// <summary>Text that is not JSON, with where it stopped making sense.</summary>
    public sealed class JsonParseException : FormatException
    {
        /// <summary>The character offset of the problem.</summary>
        public int Position { get; private set; }

        public JsonParseException(string message, int position)
            : base(message + " at offset " + position.ToString(CultureInfo.InvariantCulture))
        {
            Position = position;
        }
    }

    /// <summary>Parse and write JSON.</summary>
    public static class Json
    {
        /// <summary>How deep arrays and objects may nest (the server allows 32 in attributes).</summary>
        public const int MaxDepth = 256;

        /// <summary>The value of a JSON text; a JsonParseException when it is not one.</summary>
        public static object Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            var reader = new Reader(text);
            reader.SkipSpace();
            var value = reader.ReadValue(0);
            reader.SkipSpace();
            if (reader.Position != text.Length)
                throw new JsonParseException("unexpected text after the JSON value", reader.Position);
            return value;
        }

        /// <summary>The JSON text of a value (compact, non-ASCII characters kept as they are).</summary>
        public static string Serialize(object value)
        {
            var writer = new JsonWriter();
            writer.Value(value);
            return writer.ToString();
        }

        private sealed class Reader
        {
            private readonly string text;
            public int Position;

            public Reader(string text)
            {
                this.text = text;
            }

            public void SkipSpace()
            {
                while (Position < text.Length)
                {
                    var c = text[Position];
                    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
                    Position++;
                }
            }

            private JsonParseException Error(string message)
            {
                return new JsonParseException(message, Position);
            }

            public object ReadValue(int depth)
            {
                if (Position >= text.Length) throw Error("unexpected end of JSON");
                var c = text[Position];
                switch (c)
                {
                    case '{':
                        return ReadObject(depth + 1);
                    case '[':
                        return ReadArray(depth + 1);
                    case '"':
                        return ReadString();
                    case 't':
                        Expect("true");
                        return true;
                    case 'f':
                        Expect("false");
                        return false;
                    case 'n':
                        Expect("null");
                        return null;
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
                        throw Error("unexpected character '" + c + "'");
                }
            }

            private void Expect(string word)
            {
                if (string.CompareOrdinal(text, Position, word, 0, word.Length) != 0)
                    throw Error("expected " + word);
                Position += word.Length;
            }

            private Dictionary<string, object> ReadObject(int depth)
            {
                if (depth > MaxDepth) throw Error("JSON nested deeper than " + MaxDepth);
                var result = new Dictionary<string, object>();
                Position++; // {
                SkipSpace();
                if (Position < text.Length && text[Position] == '}')
                {
                    Position++;
                    return result;
                }
                while (true)
                {
                    SkipSpace();
                    if (Position >= text.Length || text[Position] != '"') throw Error("expected a key");
                    var key = ReadString();
                    SkipSpace();
                    if (Position >= text.Length || text[Position] != ':') throw Error("expected ':'");
                    Position++;
                    SkipSpace();
                    result[key] = ReadValue(depth);
                    SkipSpace();
                    if (Position >= text.Length) throw Error("unexpected end of JSON");
                    if (text[Position] == ',')
                    {
                        Position++;
                        continue;
                    }
                    if (text[Position] == '}')
                    {
                        Position++;
                        return result;
                    }
                    throw Error("expected ',' or '}'");
                }
            }

            private List<object> ReadArray(int depth)
            {
                if (depth > MaxDepth) throw Error("JSON nested deeper than " + MaxDepth);
                var result = new List<object>();
                Position++; // [
                SkipSpace();
                if (Position < text.Length && text[Position] == ']')
                {
                    Position++;
                    return result;
                }
                while (true)
                {
                    SkipSpace();
                    result.Add(ReadValue(depth));
                    SkipSpace();
                    if (Position >= text.Length) throw Error("unexpected end of JSON");
                    if (text[Position] == ',')
                    {
                        Position++;
                        continue;
                    }
                    if (text[Position] == ']')
                    {
                        Position++;
                        return result;
                    }
                    throw Error("expected ',' or ']'");
                }
            }

            private string ReadString()
            {
                Position++; // opening quote
                var start = Position;
                // The common case, no escapes: one substring.
                while (Position < text.Length)
                {
                    var c = text[Position];
                    if (c == '"')
                    {
                        var plain = text.Substring(start, Position - start);
                        Position++;
                        return plain;
                    }
                    if (c == '\\') break;
                    if (c < ' ') throw Error("a control character inside a string");
                    Position++;
                }
                var builder = new StringBuilder(text, start, Position - start, Position - start + 16);
                while (Position < text.Length)
                {
                    var c = text[Position++];
                    if (c == '"') return builder.ToString();
                    if (c < ' ')
                    {
                        Position--;
                        throw Error("a control character inside a string");
                    }
                    if (c != '\\')
                    {
                        builder.Append(c);
                        continue;
                    }
                    if (Position >= text.Length) break;
                    var escape = text[Position++];
                    switch (escape)
                    {
                        case '"': builder.Append('"'); break;
                        case '\\': builder.Append('\\'); break;
                        case '/': builder.Append('/'); break;
                        case 'b': builder.Append('\b'); break;
                        case 'f': builder.Append('\f'); break;
                        case 'n': builder.Append('\n'); break;
                        case 'r': builder.Append('\r'); break;
                        case 't': builder.Append('\t'); break;
                        case 'u': builder.Append(ReadHex4()); break;
                        default:
                            Position--;
                            throw Error("an unknown escape '\\" + escape + "'");
                    }
                }
                throw Error("an unterminated string");
            }

            private char ReadHex4()
            {
                if (Position + 4 > text.Length) throw Error("a short \\u escape");
                var code = 0;
                for (var i = 0; i < 4; i++)
                {
                    var c = text[Position + i];
                    int digit;
                    if (c >= '0' && c <= '9') digit = c - '0';
                    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
                    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
                    else throw Error("a bad \\u escape");
                    code = code * 16 + digit;
                }
                Position += 4;
                return (char)code;
            }

            private object ReadNumber()
            {
                var start = Position;
                if (text[Position] == '-') Position++;
                if (Position >= text.Length) throw Error("a bad number");
                if (text[Position] == '0') Position++;
                else if (text[Position] >= '1' && text[Position] <= '9') SkipDigits();
                else throw Error("a bad number");
                var integral = true;
                if (Position < text.Length && text[Position] == '.')
                {
                    integral = false;
                    Position++;
                    if (!Digit()) throw Error("a bad number");
                    SkipDigits();
                }
                if (Position < text.Length && (text[Position] == 'e' || text[Position] == 'E'))
                {
                    integral = false;
                    Position++;
                    if (Position < text.Length && (text[Position] == '+' || text[Position] == '-')) Position++;
                    if (!Digit()) throw Error("a bad number");
                    SkipDigits();
                }
                var literal = text.Substring(start, Position - start);
                long whole;
                if (integral && long.TryParse(literal, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out whole))
                    return whole;
                return JsonNumber.ToDouble(literal);
            }

            private bool Digit()
            {
                return Position < text.Length && text[Position] >= '0' && text[Position] <= '9';
            }

            private void SkipDigits()
            {
                while (Digit()) Position++;
            }
        }
    }

    /// <summary>
    /// A JSON number as the nearest double, exactly (as Python and .NET Core read it): Mono's and
    /// .NET Framework's double.Parse, which Unity uses, can be one unit in the last place off.
    /// </summary>
    internal static class JsonNumber
    {
        private static readonly double[] Powers =
        {
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
        };

        private static readonly BigInteger TwoTo52 = BigInteger.One << 52;
        private static readonly BigInteger TwoTo53 = BigInteger.One << 53;

        /// <summary>The double nearest to a JSON number's text (ties to even); infinity beyond the range.</summary>
        public static double ToDouble(string literal)
        {
            var negative = literal[0] == '-';
            var digits = new StringBuilder(literal.Length);
            var exponent = 0;
            var fraction = false;
            var i = negative ? 1 : 0;
            for (; i < literal.Length && literal[i] != 'e' && literal[i] != 'E'; i++)
            {
                if (literal[i] == '.')
                {
                    fraction = true;
                    continue;
                }
                if (fraction) exponent--;
                if (digits.Length > 0 || literal[i] != '0') digits.Append(literal[i]);
            }
            if (i < literal.Length)
            {
                // An exponent past what any double needs only decides between zero and infinity.
                int written;
                var text = literal.Substring(i + 1);
                if (!int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out written))
                    written = text.StartsWith("-", StringComparison.Ordinal) ? -100000 : 100000;
                exponent += Math.Max(-100000, Math.Min(100000, written));
            }
            var magnitude = Magnitude(digits.ToString(), exponent);
            return negative ? -magnitude : magnitude;
        }

        private static double Magnitude(string digits, int exponent)
        {
            if (digits.Length == 0) return 0.0;
            var decimalPoint = digits.Length + exponent; // the number is 0.digits * 10^decimalPoint
            if (decimalPoint > 310) return double.PositiveInfinity;
            if (decimalPoint < -330) return 0.0;
            if (digits.Length <= 15 && Math.Abs(exponent) <= 22)
            {
                // Both exact as doubles: one correctly rounded operation (Clinger's fast path).
                var whole = (double)long.Parse(digits, CultureInfo.InvariantCulture);
                return exponent >= 0 ? whole * Powers[exponent] : whole / Powers[-exponent];
            }
            var numerator = BigInteger.Parse(digits, CultureInfo.InvariantCulture);
            var denominator = BigInteger.One;
            if (exponent >= 0) numerator *= BigInteger.Pow(10, exponent);
            else denominator = BigInteger.Pow(10, -exponent);
            // value = numerator / denominator = q * 2^shift, with 2^52 <= q < 2^53 (fewer bits
            // for a subnormal), rounded half to even.
            var shift = (int)Math.Floor(BigInteger.Log(numerator, 2) - BigInteger.Log(denominator, 2)) - 52;
            while (true)
            {
                var effective = Math.Max(shift, -1074);
                var top = effective < 0 ? numerator << -effective : numerator;
                var bottom = effective > 0 ? denominator << effective : denominator;
                BigInteger remainder;
                var q = BigInteger.DivRem(top, bottom, out remainder);
                if (q >= TwoTo53)
                {
                    shift = effective + 1;
                    continue;
                }
                if (q < TwoTo52 && effective > -1074)
                {
                    shift = effective - 1;
                    continue;
                }
                var twice = remainder << 1;
                if (twice > bottom || (twice == bottom && !q.IsEven)) q += 1;
                if (q == TwoTo53)
                {
                    q = TwoTo52;
                    effective++;
                }
                if (effective > 971) return double.PositiveInfinity;
                return (double)(long)q * PowerOfTwo(effective);
            }
        }

        private static double PowerOfTwo(int exponent)
        {
            if (exponent >= -1022) return BitConverter.Int64BitsToDouble((long)(exponent + 1023) << 52);
            return BitConverter.Int64BitsToDouble(1L << (exponent + 1074));
        }
    }

    /// <summary>Writes one JSON text, value by value; the models' WriteJson use it.</summary>
    public sealed class JsonWriter
    {
        private readonly StringBuilder output = new StringBuilder();
        // One entry per open object or array: whether a member was written (so a comma is due).
        private readonly Stack<bool> written = new Stack<bool>();
        private bool afterKey;
        private int depth;

        public override string ToString()
        {
            return output.ToString();
        }

        /// <summary>Start an object; then its members (Key and Value, or Field), then EndObject.</summary>
        public JsonWriter BeginObject()
        {
            Separate();
            Open();
            output.Append('{');
            return this;
        }

        public JsonWriter EndObject()
        {
            Close();
            output.Append('}');
            return this;
        }

        public JsonWriter BeginArray()
        {
            Separate();
            Open();
            output.Append('[');
            return this;
        }

        public JsonWriter EndArray()
        {
            Close();
            output.Append(']');
            return this;
        }

        /// <summary>An object member's name; its value comes next.</summary>
        public JsonWriter Key(string name)
        {
            Separate();
            WriteString(name);
            output.Append(':');
            afterKey = true;
            return this;
        }

        /// <summary>A member, left out when the value is null (the server's default applies).</summary>
        public JsonWriter Field(string name, object value)
        {
            if (value == null) return this;
            return Key(name).Value(value);
        }

        private void Open()
        {
            if (++depth > Json.MaxDepth) throw new ArgumentException("a value nested deeper than " + Json.MaxDepth);
            written.Push(false);
        }

        private void Close()
        {
            if (written.Count == 0) throw new InvalidOperationException("nothing to close");
            written.Pop();
            depth--;
        }

        private void Separate()
        {
            if (afterKey)
            {
                afterKey = false;
                return;
            }
            if (written.Count == 0) return;
            if (written.Pop()) output.Append(',');
            written.Push(true);
        }

        /// <summary>Any value the writer knows (see the file's header).</summary>
        public JsonWriter Value(object value)
        {
            var writable = value as IJsonWritable;
            if (writable != null)
            {
                writable.WriteJson(this);
                return this;
            }
            if (value == null || value is string || value is bool || IsNumber(value)
                || value is DateTimeOffset || value is DateTime)
            {
                Separate();
                WriteScalar(value);
                return this;
            }
            var dictionary = value as IDictionary;
            if (dictionary != null)
            {
                BeginObject();
                foreach (DictionaryEntry entry in dictionary)
                {
                    var key = entry.Key as string;
                    if (key == null) throw new ArgumentException("a JSON object's keys are strings, not " + entry.Key);
                    Key(key).Value(entry.Value);
                }
                return EndObject();
            }
            var sequence = value as IEnumerable;
            if (sequence != null)
            {
                BeginArray();
                foreach (var item in sequence) Value(item);
                return EndArray();
            }
            throw new ArgumentException("no JSON form for a " + value.GetType().Name);
        }

        private static bool IsNumber(object value)
        {
            return value is int || value is long || value is double || value is float || value is decimal
                || value is short || value is byte || value is sbyte || value is ushort || value is uint
                || value is ulong;
        }

        private void WriteScalar(object value)
        {
            if (value == null) output.Append("null");
            else if (value is string) WriteString((string)value);
            else if (value is bool) output.Append((bool)value ? "true" : "false");
            else if (value is double) WriteDouble((double)value);
            else if (value is float) WriteDouble((float)value);
            else if (value is decimal) output.Append(((decimal)value).ToString(CultureInfo.InvariantCulture));
            else if (value is DateTimeOffset) WriteString(Iso.Format((DateTimeOffset)value));
            else if (value is DateTime) WriteString(Iso.Format((DateTime)value));
            else output.Append(Convert.ToString(value, CultureInfo.InvariantCulture));
        }

        private void WriteDouble(double value)
        {
            if (double.IsNaN(value) || double.IsInfinity(value))
                throw new ArgumentException("JSON has no NaN or infinity");
            // Seventeen digits always name one double; "R" (shortest) does not on Mono and .NET
            // Framework, whose own parser then agrees with the wrong text (0.7 is 0.69999999999999996).
            if (value == 0)
            {
                output.Append(BitConverter.DoubleToInt64Bits(value) < 0 ? "-0.0" : "0.0");
                return;
            }
            var text = value.ToString("G17", CultureInfo.InvariantCulture);
            output.Append(text);
            // A double stays a double for the server: 2.0, not 2 (which Python reads as an int).
            if (text.IndexOf('.') < 0 && text.IndexOf('E') < 0) output.Append(".0");
        }

        private void WriteString(string value)
        {
            output.Append('"');
            for (var i = 0; i < value.Length; i++)
            {
                var c = value[i];
                switch (c)
                {
                    case '"': output.Append("\\\""); break;
                    case '\\': output.Append("\\\\"); break;
                    case '\n': output.Append("\\n"); break;
                    case '\r': output.Append("\\r"); break;
                    case '\t': output.Append("\\t"); break;
                    case '\b': output.Append("\\b"); break;
                    case '\f': output.Append("\\f"); break;
                    default:
                        if (char.IsHighSurrogate(c) && i + 1 < value.Length && char.IsLowSurrogate(value[i + 1]))
                        {
                            // A pair is one character: it goes out as UTF-8.
                            output.Append(c).Append(value[++i]);
                        }
                        else if (c < ' ' || char.IsSurrogate(c))
                        {
                            // A lone surrogate has no UTF-8 form: escaped (the server refuses it, 422).
                            output.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        }
                        else output.Append(c);
                        break;
                }
            }
            output.Append('"');
        }
    }
}
