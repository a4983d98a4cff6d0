using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer
{
    /// <summary>
    /// The client's unanswered requests. Each keeps its frame, id included, until a result, a final error or
    /// its deadline settles it; until then it is re-sent after every welcome and after each retryable refusal
    /// (after its <c>retryAfterMs</c>), so the node, which applies an id once per session, sees the same
    /// request again, never a new one.
    /// </summary>
    internal sealed class PendingCalls
    {
        private sealed class Pending
        {
            public JObject Frame;
            public DateTime Deadline;
            public TaskCompletionSource<JToken> Done;
        }

        private readonly object gate = new object();
        private readonly Dictionary<long, Pending> calls = new Dictionary<long, Pending>();
        /// <summary>Sends a frame when the client is welcomed (and says so); drops it otherwise.</summary>
        private readonly Func<JObject, bool> send;

        public PendingCalls(Func<JObject, bool> send)
        {
            this.send = send;
        }

        /// <summary>Sends a request and completes with its result's <c>value</c>; fails with its final error or TIMEOUT.</summary>
        public Task<JToken> Add(JObject frame, int timeoutMs)
        {
            var id = (long)frame["id"];
            var entry = new Pending
            {
                Frame = frame,
                Deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs),
                Done = new TaskCompletionSource<JToken>(TaskCreationOptions.RunContinuationsAsynchronously),
            };
            lock (gate) calls[id] = entry;
            Task.Delay(timeoutMs).ContinueWith(_ =>
                Finish(id, null, new FoyerException("TIMEOUT", (string)frame["type"] + " was not answered in " + timeoutMs + " ms")));
            send(frame);
            return entry.Done.Task;
        }

        /// <summary>A result answered a call; one already settled is ignored.</summary>
        public void Settle(long id, JToken value)
        {
            Finish(id, value ?? JValue.CreateNull(), null);
        }

        /// <summary>
        /// An error frame answered a call. A final code settles it; a retryable one is re-sent with the same id
        /// after <c>retryAfterMs</c>, unless that would pass the call's deadline.
        /// </summary>
        public void Refused(long id, string code, string message, int? retryAfterMs)
        {
            Pending entry;
            lock (gate)
                if (!calls.TryGetValue(id, out entry)) return;
            var error = new FoyerException(code, message, retryAfterMs);
            var wait = retryAfterMs ?? 100;
            if (!error.Retryable || DateTime.UtcNow.AddMilliseconds(wait) >= entry.Deadline)
            {
                Finish(id, null, error);
                return;
            }
            Task.Delay(wait).ContinueWith(_ =>
            {
                bool still;
                lock (gate) still = calls.ContainsKey(id);
                if (still) send(entry.Frame);
            });
        }

        /// <summary>After a welcome: re-sends every unanswered call, in id order.</summary>
        public void ResendAll()
        {
            List<Pending> open;
            lock (gate) open = calls.OrderBy(pair => pair.Key).Select(pair => pair.Value).ToList();
            foreach (var entry in open) send(entry.Frame);
        }

        /// <summary>Fails every unanswered call (the client closed, or the connection ended for good).</summary>
        public void FailAll(FoyerException error)
        {
            List<long> ids;
            lock (gate) ids = calls.Keys.ToList();
            foreach (var id in ids) Finish(id, null, error);
        }

        public int Count
        {
            get { lock (gate) return calls.Count; }
        }

        private void Finish(long id, JToken value, FoyerException error)
        {
            Pending entry;
            lock (gate)
            {
                if (!calls.TryGetValue(id, out entry)) return;
                calls.Remove(id);
            }
            if (error != null) entry.Done.TrySetException(error);
            else entry.Done.TrySetResult(value);
        }
    }
}
