// Reads "STATUS TITLE" lines on standard input and prints, for each, the exception class the
// client makes of that problem document and that class's base ("NotFoundException
// GraphmemException"). tests/server/test_csharp_client.py compares the answers with the error
// tree of graphmem/errors.py and the statuses of graphmem/server/problems.py.
using System;
using System.Collections.Generic;
using System.Globalization;
using Graphmem;

public static class ErrorMapping
{
    public static int Main()
    {
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            var parts = line.Split(new[] { ' ' }, 2);
            var status = int.Parse(parts[0], CultureInfo.InvariantCulture);
            var problem = new Dictionary<string, object>
            {
                { "type", "urn:graphmem:error:" + parts[1] },
                { "title", parts[1] },
                { "status", (long)status },
                { "detail", "what went wrong" },
            };
            var error = GraphmemException.FromProblem(status, problem);
            Console.WriteLine(error.GetType().Name + " " + error.GetType().BaseType.Name + " " + error.Status + " " + error.Title);
        }
        return 0;
    }
}
