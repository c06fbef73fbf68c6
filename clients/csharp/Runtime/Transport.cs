// How a request reaches the server: a small interface with two implementations, HttpClient
// (.NET, Mono, Unity desktop and mobile) and UnityWebRequest (every Unity platform, WebGL
// included: see UnityWebRequestTransport.cs). Bring your own for anything else (a proxy, a
// recorded session in a test).
using System;
using System.Collections.Generic;
using System.IO;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;

namespace Graphmem
{
    /// <summary>One HTTP request, as the client built it.</summary>
    public sealed class GraphmemRequest
    {
        public GraphmemRequest(string method, string url, byte[] body, IDictionary<string, string> headers)
        {
            Method = method;
            Url = url;
            Body = body;
            Headers = headers ?? new Dictionary<string, string>();
        }

        /// <summary>GET, POST, PATCH, PUT or DELETE.</summary>
        public string Method { get; private set; }

        /// <summary>The absolute URL, path segments and query already percent-encoded.</summary>
        public string Url { get; private set; }

        /// <summary>UTF-8 JSON, or null for a request without a body.</summary>
        public byte[] Body { get; private set; }

        /// <summary>Accept, Authorization (with an API key), Content-Type (with a body).</summary>
        public IDictionary<string, string> Headers { get; private set; }
    }

    /// <summary>The server's answer, whatever its status.</summary>
    public sealed class GraphmemResponse
    {
        public GraphmemResponse(int status, string contentType, byte[] body)
        {
            Status = status;
            ContentType = contentType;
            Body = body ?? new byte[0];
        }

        public int Status { get; private set; }

        /// <summary>The media type (application/json, application/problem+json), or null.</summary>
        public string ContentType { get; private set; }

        public byte[] Body { get; private set; }
    }

    /// <summary>Sends one request and returns the answer.</summary>
    public interface IGraphmemTransport
    {
        /// <summary>
        /// Send the request and return the server's answer, an error status included; throw a
        /// GraphmemConnectionException when no answer came, an OperationCanceledException when
        /// <paramref name="cancellation"/> fired. It is called on the thread that called the client
        /// (in Unity, the main thread, as UnityWebRequest needs).
        /// </summary>
        Task<GraphmemResponse> Send(GraphmemRequest request, CancellationToken cancellation);
    }

    /// <summary>The transport on System.Net.Http.HttpClient (not on WebGL: use UnityWebRequestTransport).</summary>
    public sealed class HttpClientTransport : IGraphmemTransport, IDisposable
    {
        private readonly HttpClient client;
        private readonly bool ownsClient;

        /// <summary>Its own HttpClient (disposed with it), with a 100 s timeout.</summary>
        public HttpClientTransport()
            : this(new HttpClient(), true)
        {
        }

        /// <summary>
        /// Over your HttpClient (one per application is the rule: its connections are pooled);
        /// set its Timeout there.
        /// </summary>
        public HttpClientTransport(HttpClient client, bool ownsClient = false)
        {
            if (client == null) throw new ArgumentNullException("client");
            this.client = client;
            this.ownsClient = ownsClient;
        }

        public async Task<GraphmemResponse> Send(GraphmemRequest request, CancellationToken cancellation)
        {
            using (var message = new HttpRequestMessage(new HttpMethod(request.Method), request.Url))
            {
                if (request.Body != null) message.Content = new ByteArrayContent(request.Body);
                foreach (var header in request.Headers)
                {
                    if (string.Equals(header.Key, "Content-Type", StringComparison.OrdinalIgnoreCase))
                    {
                        if (message.Content != null) message.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(header.Value);
                    }
                    else message.Headers.TryAddWithoutValidation(header.Key, header.Value);
                }
                HttpResponseMessage response;
                try
                {
                    response = await client.SendAsync(message, HttpCompletionOption.ResponseContentRead, cancellation)
                        .ConfigureAwait(false);
                }
                catch (HttpRequestException error)
                {
                    throw new GraphmemConnectionException(NoAnswer(request, error), error);
                }
                catch (OperationCanceledException error)
                {
                    if (cancellation.IsCancellationRequested) throw;
                    // HttpClient reports its own timeout as a cancellation nobody asked for.
                    throw new GraphmemConnectionException(
                        "no answer from " + request.Url + " within " + client.Timeout.TotalSeconds + " s", error);
                }
                using (response)
                {
                    byte[] body;
                    try
                    {
                        body = await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
                    }
                    catch (IOException error)
                    {
                        throw new GraphmemConnectionException(NoAnswer(request, error), error);
                    }
                    var type = response.Content.Headers.ContentType;
                    return new GraphmemResponse((int)response.StatusCode, type == null ? null : type.MediaType, body);
                }
            }
        }

        private static string NoAnswer(GraphmemRequest request, Exception error)
        {
            var reason = error.Message;
            for (var inner = error.InnerException; inner != null; inner = inner.InnerException) reason += ": " + inner.Message;
            return "no answer from " + request.Method + " " + request.Url + " (" + reason + ")";
        }

        public void Dispose()
        {
            if (ownsClient) client.Dispose();
        }
    }
}
