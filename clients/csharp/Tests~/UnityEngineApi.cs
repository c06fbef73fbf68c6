// The part of UnityEngine's API that the client (UnityWebRequestTransport.cs) and the README's
// MonoBehaviour snippets use, with Unity's documented signatures, so that both compile outside
// Unity (tests/server/test_csharp_client.py, with -define:UNITY_5_3_OR_NEWER). Nothing here
// runs: every member throws. It checks names and types, not Unity's behaviour.
using System;
using System.Collections;

namespace UnityEngine
{
    public class Object
    {
    }

    public class Component : Object
    {
    }

    public class Behaviour : Component
    {
        public bool enabled { get; set; }
    }

    public class MonoBehaviour : Behaviour
    {
        public Coroutine StartCoroutine(IEnumerator routine)
        {
            throw new NotSupportedException("compile-time stand-in for UnityEngine");
        }
    }

    public sealed class Coroutine : YieldInstruction
    {
    }

    public class YieldInstruction
    {
    }

    public abstract class CustomYieldInstruction : IEnumerator
    {
        public abstract bool keepWaiting { get; }
        public object Current { get { return null; } }
        public bool MoveNext() { return keepWaiting; }
        public virtual void Reset() { }
    }

    public sealed class WaitUntil : CustomYieldInstruction
    {
        public WaitUntil(Func<bool> predicate)
        {
            throw new NotSupportedException("compile-time stand-in for UnityEngine");
        }

        public override bool keepWaiting { get { return false; } }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute
    {
    }

    public static class Debug
    {
        public static void Log(object message) { throw new NotSupportedException(); }
        public static void LogWarning(object message) { throw new NotSupportedException(); }
        public static void LogError(object message) { throw new NotSupportedException(); }
        public static void LogException(Exception exception) { throw new NotSupportedException(); }
    }

    public class AsyncOperation : YieldInstruction
    {
        public bool isDone { get { throw new NotSupportedException(); } }
        public float progress { get { throw new NotSupportedException(); } }
#pragma warning disable 67 // never raised here: nothing runs
        public event Action<AsyncOperation> completed;
#pragma warning restore 67
    }
}

namespace UnityEngine.Networking
{
    public class DownloadHandler : IDisposable
    {
        public byte[] data { get { throw new NotSupportedException(); } }
        public string text { get { throw new NotSupportedException(); } }
        public void Dispose() { }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler
    {
    }

    public class UploadHandler : IDisposable
    {
        public string contentType { get; set; }
        public void Dispose() { }
    }

    public sealed class UploadHandlerRaw : UploadHandler
    {
        public UploadHandlerRaw(byte[] data)
        {
            throw new NotSupportedException("compile-time stand-in for UnityEngine");
        }
    }

    public class UnityWebRequestAsyncOperation : AsyncOperation
    {
        public UnityWebRequest webRequest { get { throw new NotSupportedException(); } }
    }

    public class UnityWebRequest : IDisposable
    {
        public enum Result
        {
            InProgress,
            Success,
            ConnectionError,
            ProtocolError,
            DataProcessingError,
        }

        public UnityWebRequest(string url, string method)
        {
            throw new NotSupportedException("compile-time stand-in for UnityEngine");
        }

        public DownloadHandler downloadHandler { get; set; }
        public UploadHandler uploadHandler { get; set; }
        public int timeout { get; set; }
        public long responseCode { get { throw new NotSupportedException(); } }
        public string error { get { throw new NotSupportedException(); } }
        public Result result { get { throw new NotSupportedException(); } }

        [Obsolete("UnityWebRequest.isNetworkError is deprecated. Use (UnityWebRequest.result == UnityWebRequest.Result.ConnectionError) instead.", false)]
        public bool isNetworkError { get { throw new NotSupportedException(); } }

        public void SetRequestHeader(string name, string value) { throw new NotSupportedException(); }
        public string GetResponseHeader(string name) { throw new NotSupportedException(); }
        public UnityWebRequestAsyncOperation SendWebRequest() { throw new NotSupportedException(); }
        public void Abort() { throw new NotSupportedException(); }
        public void Dispose() { }

        public static string EscapeURL(string s) { throw new NotSupportedException(); }
    }
}
