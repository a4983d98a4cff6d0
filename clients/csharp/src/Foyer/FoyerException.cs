using System;

namespace Foyer
{
    /// <summary>
    /// A refusal by the node (an <c>error</c> frame's <c>code</c>: NOT_FOUND, NOT_HOST, …), or the client's own
    /// TIMEOUT (a call's deadline passed) and UNAVAILABLE (not connected, closed).
    /// </summary>
    public sealed class FoyerException : Exception
    {
        public string Code { get; private set; }
        /// <summary>The node's <c>retryAfterMs</c>, for a retryable code.</summary>
        public int? RetryAfterMs { get; private set; }

        public FoyerException(string code, string message, int? retryAfterMs = null)
            : base(code + ": " + message)
        {
            Code = code;
            RetryAfterMs = retryAfterMs;
        }

        /// <summary>UNAVAILABLE, MOVED and RATE_LIMITED: the same request with the same id may be sent again.</summary>
        public bool Retryable
        {
            get { return IsRetryable(Code); }
        }

        public static bool IsRetryable(string code)
        {
            return code == "UNAVAILABLE" || code == "MOVED" || code == "RATE_LIMITED";
        }
    }
}
