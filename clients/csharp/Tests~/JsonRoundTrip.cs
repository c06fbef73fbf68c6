// Reads JSON texts, one per line of standard input (each line itself a JSON string holding the
// text, so any text fits on a line), parses each with Graphmem.Json and writes it back.
// Prints one line per input: "ok <the text written>", "error <why it is not JSON>" or
// "unwritable <why>" (1e400 reads as infinity, which JSON cannot write).
// tests/server/test_csharp_client.py compares both with Python's json module.
using System;
using System.IO;
using System.Text;
using Graphmem;

public static class JsonRoundTrip
{
    public static int Main()
    {
        var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        string line;
        while ((line = input.ReadLine()) != null)
        {
            var text = (string)Json.Parse(line);
            string answer;
            try
            {
                answer = "ok " + Json.Serialize(Json.Parse(text));
            }
            catch (JsonParseException error)
            {
                answer = "error " + Json.Serialize(error.Message);
            }
            catch (ArgumentException error)
            {
                // Read, but not writable as JSON (a number beyond double's range is infinite).
                answer = "unwritable " + Json.Serialize(error.Message);
            }
            output.Write(answer);
            output.Write('\n');
        }
        output.Flush();
        return 0;
    }
}
