// The server's errors as exceptions, one class per graphmem error (graphmem/errors.py),
// plus the HTTP-level ones (a body that is not JSON, a size limit, a wrong method):
//
//   GraphmemException                      Status, Title, Detail, Problem (the whole document)
//   ├── NotFoundException                  404
//   ├── InvalidInputException              422
//   │   ├── InvalidSnapshotException
//   │   └── PolicyViolationException       403
//   │       ├── ForbiddenCategoryException, PIIDetectedException,
//   │       └── PoisoningDetectedException, MalformedPrivacyTagException
//   ├── SignatureMismatchException         409
//   │   └── AuditChainBrokenException
//   ├── InvalidTransitionException         409
//   ├── UnsupportedOperationException      501
//   │   └── StoreReadOnlyException
//   ├── BackendUnavailableException        503
//   │   ├── StoreLockedException, NotAStoreException
//   │   └── StoreCorruptedException
//   │       └── CommitsMissingException
//   ├── IdentityRequiredException          401
//   ├── StoreClosedException               503
//   ├── BadRequestException 400, MethodNotAllowedException 405, PayloadTooLargeException 413,
//   │   UnsupportedMediaTypeException 415, InternalErrorException 500
//   ├── GraphmemConnectionException        no answer: refused, timed out, no network (Status 0)
//   └── GraphmemProtocolException          an answer that is not what the API promises
//
// A problem whose title this client does not know yet (a newer server) becomes the class of
// its status (404: NotFoundException, ...), so a catch by status class keeps working.
using System;
using System.Collections.Generic;
using System.Globalization;

namespace Graphmem
{
    /// <summary>
    /// Root of every error the client raises: the server's problem document
    /// (application/problem+json) or why there was none.
    /// </summary>
    public class GraphmemException : Exception
    {
        private static readonly IDictionary<string, object> NoMembers = new Dictionary<string, object>();

        /// <summary>The HTTP status; 0 when no answer came.</summary>
        public int Status { get; private set; }

        /// <summary>The graphmem error class ("NotFound", "InvalidInput", ...).</summary>
        public string Title { get; private set; }

        /// <summary>What went wrong and what to do about it.</summary>
        public string Detail { get; private set; }

        /// <summary>The path of the request that failed.</summary>
        public string Instance { get; private set; }

        /// <summary>
        /// The whole problem document, its extension members included: "entity_id", "errors"
        /// (where each validation problem is), "limit", "rule", ...
        /// </summary>
        public IDictionary<string, object> Problem { get; private set; }

        public GraphmemException(string message)
            : this(0, "GraphmemError", message, null, null)
        {
        }

        public GraphmemException(string message, Exception inner)
            : base(message, inner)
        {
            Title = "GraphmemError";
            Detail = message;
            Problem = NoMembers;
        }

        public GraphmemException(int status, string title, string detail, IDictionary<string, object> problem, Exception inner)
            : base(title + ": " + detail, inner)
        {
            Status = status;
            Title = title;
            Detail = detail;
            Problem = problem ?? NoMembers;
            object instance;
            if (Problem.TryGetValue("instance", out instance)) Instance = instance as string;
        }

        protected GraphmemException(int status, string title, string detail, IDictionary<string, object> problem)
            : this(status, title, detail, problem, null)
        {
        }

        /// <summary>One member of the problem document (null when absent).</summary>
        public object Member(string name)
        {
            object value;
            return Problem.TryGetValue(name, out value) ? value : null;
        }

        /// <summary>The exception for a problem document answered with <paramref name="status"/>.</summary>
        public static GraphmemException FromProblem(int status, IDictionary<string, object> problem)
        {
            object title, detail;
            problem.TryGetValue("title", out title);
            problem.TryGetValue("detail", out detail);
            var name = title as string ?? "HTTP " + status.ToString(CultureInfo.InvariantCulture);
            var text = detail as string ?? "";
            return Make(name, status, name, text, problem) ?? ByStatus(status, name, text, problem);
        }

        /// <summary>The exception for an error answer that is not a problem document (a proxy's page).</summary>
        public static GraphmemException FromStatus(int status, string body)
        {
            var title = "HTTP " + status.ToString(CultureInfo.InvariantCulture);
            var text = body ?? "";
            if (text.Length > 500) text = text.Substring(0, 500) + "...";
            return ByStatus(status, title, text, null);
        }

        private static GraphmemException ByStatus(int status, string title, string detail, IDictionary<string, object> problem)
        {
            switch (status)
            {
                case 400: return new BadRequestException(status, title, detail, problem);
                case 401: return new IdentityRequiredException(status, title, detail, problem);
                case 403: return new PolicyViolationException(status, title, detail, problem);
                case 404: return new NotFoundException(status, title, detail, problem);
                case 405: return new MethodNotAllowedException(status, title, detail, problem);
                case 413: return new PayloadTooLargeException(status, title, detail, problem);
                case 415: return new UnsupportedMediaTypeException(status, title, detail, problem);
                case 422: return new InvalidInputException(status, title, detail, problem);
                case 500: return new InternalErrorException(status, title, detail, problem);
                case 501: return new UnsupportedOperationException(status, title, detail, problem);
                case 503: return new BackendUnavailableException(status, title, detail, problem);
                default: return new GraphmemException(status, title, detail, problem, null);
            }
        }

        private static GraphmemException Make(string name, int status, string title, string detail, IDictionary<string, object> problem)
        {
            switch (name)
            {
                case "NotFound": return new NotFoundException(status, title, detail, problem);
                case "InvalidInput": return new InvalidInputException(status, title, detail, problem);
                case "InvalidSnapshot": return new InvalidSnapshotException(status, title, detail, problem);
                case "PolicyViolation": return new PolicyViolationException(status, title, detail, problem);
                case "ForbiddenCategory": return new ForbiddenCategoryException(status, title, detail, problem);
                case "PIIDetected": return new PIIDetectedException(status, title, detail, problem);
                case "PoisoningDetected": return new PoisoningDetectedException(status, title, detail, problem);
                case "MalformedPrivacyTag": return new MalformedPrivacyTagException(status, title, detail, problem);
                case "SignatureMismatch": return new SignatureMismatchException(status, title, detail, problem);
                case "AuditChainBroken": return new AuditChainBrokenException(status, title, detail, problem);
                case "InvalidTransition": return new InvalidTransitionException(status, title, detail, problem);
                case "UnsupportedOperation": return new UnsupportedOperationException(status, title, detail, problem);
                case "StoreReadOnly": return new StoreReadOnlyException(status, title, detail, problem);
                case "BackendUnavailable": return new BackendUnavailableException(status, title, detail, problem);
                case "StoreLocked": return new StoreLockedException(status, title, detail, problem);
                case "NotAStore": return new NotAStoreException(status, title, detail, problem);
                case "StoreCorrupted": return new StoreCorruptedException(status, title, detail, problem);
                case "CommitsMissing": return new CommitsMissingException(status, title, detail, problem);
                case "IdentityRequired": return new IdentityRequiredException(status, title, detail, problem);
                case "StoreClosed": return new StoreClosedException(status, title, detail, problem);
                case "BadRequest": return new BadRequestException(status, title, detail, problem);
                case "MethodNotAllowed": return new MethodNotAllowedException(status, title, detail, problem);
                case "PayloadTooLarge": return new PayloadTooLargeException(status, title, detail, problem);
                case "UnsupportedMediaType": return new UnsupportedMediaTypeException(status, title, detail, problem);
                case "InternalError": return new InternalErrorException(status, title, detail, problem);
                default: return null;
            }
        }
    }

    /// <summary>No answer from the server: refused, timed out, no network (Status is 0).</summary>
    public class GraphmemConnectionException : GraphmemException
    {
        public GraphmemConnectionException(string message, Exception inner)
            : base(0, "ConnectionFailed", message, null, inner)
        {
        }
    }

    /// <summary>An answer that is not what the API promises (not JSON, a member missing).</summary>
    public class GraphmemProtocolException : GraphmemException
    {
        public GraphmemProtocolException(string message, Exception inner = null)
            : base(0, "ProtocolError", message, null, inner)
        {
        }
    }

    /// <summary>An entity, relationship, turn or conversation id is not there (404 NotFound).</summary>
    public class NotFoundException : GraphmemException
    {
        public NotFoundException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>Bad data or arguments; nothing was written (422 InvalidInput). Problem["errors"] says where.</summary>
    public class InvalidInputException : GraphmemException
    {
        public InvalidInputException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>A snapshot that graphmem did not make, or made for another strategy.</summary>
    public class InvalidSnapshotException : InvalidInputException
    {
        public InvalidSnapshotException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>A governed write breaks a memory-policy rule; nothing was written (403). Problem["rule"] names it.</summary>
    public class PolicyViolationException : InvalidInputException
    {
        public PolicyViolationException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The fact's category is forbidden.</summary>
    public class ForbiddenCategoryException : PolicyViolationException
    {
        public ForbiddenCategoryException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>Personal data found, and a policy that rejects it.</summary>
    public class PIIDetectedException : PolicyViolationException
    {
        public PIIDetectedException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>Instructions aimed at the model, and a policy that rejects them.</summary>
    public class PoisoningDetectedException : PolicyViolationException
    {
        public PoisoningDetectedException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>A privacy tag is unclosed, stray, nested or unknown.</summary>
    public class MalformedPrivacyTagException : PolicyViolationException
    {
        public MalformedPrivacyTagException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>Governance records do not verify (409).</summary>
    public class SignatureMismatchException : GraphmemException
    {
        public SignatureMismatchException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The tenant's audit chain was found broken: governed writes are refused.</summary>
    public class AuditChainBrokenException : SignatureMismatchException
    {
        public AuditChainBrokenException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>A health state change the state machine forbids (409).</summary>
    public class InvalidTransitionException : GraphmemException
    {
        public InvalidTransitionException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The store cannot do this; the detail says why (501).</summary>
    public class UnsupportedOperationException : GraphmemException
    {
        public UnsupportedOperationException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>A write to a store the server opened read-only.</summary>
    public class StoreReadOnlyException : UnsupportedOperationException
    {
        public StoreReadOnlyException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The server's store cannot be reached or opened, or is still starting (503).</summary>
    public class BackendUnavailableException : GraphmemException
    {
        public BackendUnavailableException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>Another writer holds the store file.</summary>
    public class StoreLockedException : BackendUnavailableException
    {
        public StoreLockedException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The store file is not a graphmem store.</summary>
    public class NotAStoreException : BackendUnavailableException
    {
        public NotAStoreException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The store file is damaged; restore a backup.</summary>
    public class StoreCorruptedException : BackendUnavailableException
    {
        public StoreCorruptedException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>Commits the store acknowledged are missing from its file.</summary>
    public class CommitsMissingException : StoreCorruptedException
    {
        public CommitsMissingException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>No API key, or one the server does not know (401).</summary>
    public class IdentityRequiredException : GraphmemException
    {
        public IdentityRequiredException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The store or conversation was closed (503).</summary>
    public class StoreClosedException : GraphmemException
    {
        public StoreClosedException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The body is not valid JSON (400).</summary>
    public class BadRequestException : GraphmemException
    {
        public BadRequestException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The route does not take this method (405).</summary>
    public class MethodNotAllowedException : GraphmemException
    {
        public MethodNotAllowedException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>A request over a size limit (413); Problem["limit"] names it.</summary>
    public class PayloadTooLargeException : GraphmemException
    {
        public PayloadTooLargeException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>The body is not sent as application/json (415).</summary>
    public class UnsupportedMediaTypeException : GraphmemException
    {
        public UnsupportedMediaTypeException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }

    /// <summary>An unexpected error on the server; its log has the details (500).</summary>
    public class InternalErrorException : GraphmemException
    {
        public InternalErrorException(int status, string title, string detail, IDictionary<string, object> problem)
            : base(status, title, detail, problem)
        {
        }
    }
}
