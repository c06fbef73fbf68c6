// The transport on UnityWebRequest: every Unity platform, WebGL included (where HttpClient has
// no sockets). Compiled only inside Unity; the client's default there.
#if UNITY_5_3_OR_NEWER
using System;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine.Networking;

namespace Graphmem
{
    /// <summary>
    /// Sends each request with UnityWebRequest and completes its Task when Unity's operation
    /// completes (on the main thread). Call the client from the main thread, as UnityWebRequest
    /// requires: from a MonoBehaviour's async method or coroutine. Needs Unity 2018.4 or newer.
    /// </summary>
    public sealed class UnityWebRequestTransport : IGraphmemTransport
    {
        /// <summary>Seconds before a request is given up (0: Unity's default, no timeout).</summary>
        public int TimeoutSeconds { get; set; }

        public UnityWebRequestTransport(int timeoutSeconds = 30)
        {
            TimeoutSeconds = timeoutSeconds;
        }

        public Task<GraphmemResponse> Send(GraphmemRequest request, CancellationToken cancellation)
        {
            cancellation.ThrowIfCancellationRequested();
            var web = new UnityWebRequest(request.Url, request.Method);
            web.downloadHandler = new DownloadHandlerBuffer();
            if (request.Body != null)
            {
                web.uploadHandler = new UploadHandlerRaw(request.Body);
            }
            foreach (var header in request.Headers)
            {
                if (string.Equals(header.Key, "Content-Type", StringComparison.OrdinalIgnoreCase))
                {
                    if (web.uploadHandler != null) web.uploadHandler.contentType = header.Value;
                }
                else web.SetRequestHeader(header.Key, header.Value);
            }
            if (TimeoutSeconds > 0) web.timeout = TimeoutSeconds;

            var done = new TaskCompletionSource<GraphmemResponse>();
            // Abort on cancellation; Unity then completes the operation with an error.
            var registration = cancellation.Register(() => web.Abort());
            var operation = web.SendWebRequest();
            // Called at once when the operation already completed (Unity's documented rule).
            operation.completed += _ =>
            {
                registration.Dispose();
                try
                {
                    if (cancellation.IsCancellationRequested)
                        done.TrySetCanceled();
                    else if (NoAnswer(web))
                        done.TrySetException(new GraphmemConnectionException(
                            "no answer from " + request.Method + " " + request.Url + " (" + web.error + ")", null));
                    else
                        done.TrySetResult(new GraphmemResponse(
                            (int)web.responseCode,
                            MediaType(web.GetResponseHeader("Content-Type")),
                            web.downloadHandler.data));
                }
                catch (Exception error)
                {
                    done.TrySetException(error);
                }
                finally
                {
                    web.Dispose();
                }
            };
            return done.Task;
        }

        private static bool NoAnswer(UnityWebRequest web)
        {
#if UNITY_2020_2_OR_NEWER
            // A ProtocolError is an answer (a 404 with its problem document), not a failure here.
            return web.result == UnityWebRequest.Result.ConnectionError
                || web.result == UnityWebRequest.Result.DataProcessingError;
#else
            return web.isNetworkError;
#endif
        }

        private static string MediaType(string header)
        {
            if (string.IsNullOrEmpty(header)) return null;
            var semicolon = header.IndexOf(';');
            return (semicolon < 0 ? header : header.Substring(0, semicolon)).Trim();
        }
    }
}
#endif
