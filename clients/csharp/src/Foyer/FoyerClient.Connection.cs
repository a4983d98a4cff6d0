using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer
{
    /// <summary>The client's connection: one socket at a time, reconnected and resumed until closed for good.</summary>
    public sealed partial class FoyerClient
    {
        /// <summary>The protocol version this client speaks.</summary>
        public const int ProtocolVersion = 1;

        /// <summary>Close codes after which reconnecting is pointless: a bad token, a newer login, an unspoken protocol.</summary>
        private static readonly HashSet<int> FinalCloses = new HashSet<int> { 4001, 4031, 4000 };

        private readonly Random jitter = new Random();
        private FoyerSocket socket;
        private bool welcomed;
        private bool closedForGood;
        private Task loop;
        /// <summary>Where the next attempt goes (a redirect's or a moved's URL), before the bootstrap URLs.</summary>
        private string redirectTo;
        /// <summary>Redirects followed since the last answer: past two, the backoff applies (a redirect loop).</summary>
        private int redirectsInARow;
        private TaskCompletionSource<bool> welcome = NewWaiter();

        private static TaskCompletionSource<bool> NewWaiter()
        {
            return new TaskCompletionSource<bool>(System.Threading.Tasks.TaskCreationOptions.RunContinuationsAsynchronously);
        }

        /// <summary>The client is welcomed on an open socket.</summary>
        public bool IsConnected
        {
            get { lock (gate) return welcomed && socket != null && socket.IsOpen; }
        }

        /// <summary>
        /// Opens the connection and completes after the welcome; throws UNAVAILABLE when none came within
        /// <see cref="FoyerClientOptions.ConnectTimeoutMs"/> (the client keeps trying until closed), or the
        /// final error of a refused hello (UNAUTHORIZED).
        /// </summary>
        public async Task ConnectAsync()
        {
            Task<bool> waiter;
            lock (gate)
            {
                if (closedForGood) throw new FoyerException("UNAVAILABLE", "the client is closed");
                if (welcomed) return;
                waiter = welcome.Task;
                if (loop == null) loop = Task.Run(RunLoop);
            }
            var first = await Task.WhenAny(waiter, Task.Delay(options.ConnectTimeoutMs)).ConfigureAwait(false);
            if (first != waiter) throw new FoyerException("UNAVAILABLE", "no welcome within " + options.ConnectTimeoutMs + " ms");
            await waiter.ConfigureAwait(false);
        }

        /// <summary>Closes the connection for good; unanswered calls fail with UNAVAILABLE.</summary>
        public async Task CloseAsync()
        {
            FoyerSocket current;
            lock (gate)
            {
                if (closedForGood) return;
                current = socket;
            }
            EndForGood(1000, "client closed");
            if (current != null)
            {
                await current.CloseAsync(1000, "bye").ConfigureAwait(false);
                current.Abort();
            }
        }

        /// <summary>Drops the socket without a goodbye, as a network failure would; the client reconnects and resumes by itself.</summary>
        public void DropConnection()
        {
            FoyerSocket current;
            lock (gate) current = socket;
            if (current != null) current.Abort();
        }

        public void Dispose()
        {
            CloseAsync().Wait(2000);
        }

        private async Task RunLoop()
        {
            var attempt = 0;
            var urlIndex = 0;
            for (;;)
            {
                string url;
                lock (gate)
                {
                    if (closedForGood) return;
                    url = redirectTo ?? options.Urls[urlIndex % options.Urls.Count];
                    redirectTo = null;
                }
                var outcome = await Attempt(url).ConfigureAwait(false);
                bool redirected;
                lock (gate)
                {
                    if (closedForGood) return;
                    redirected = redirectTo != null;
                }
                if (outcome.Welcomed) attempt = 0;
                if (outcome.CloseCode.HasValue && FinalCloses.Contains(outcome.CloseCode.Value) && !redirected)
                {
                    EndForGood(outcome.CloseCode.Value, outcome.CloseReason);
                    return;
                }
                if (outcome.Welcomed && !redirected)
                    Raise(Disconnected, new CloseEventArgs { Code = outcome.CloseCode ?? 1006, Reason = outcome.CloseReason ?? "" });
                if (redirected && ++redirectsInARow <= 2) continue;
                if (!outcome.Welcomed && !redirected) urlIndex++;
                var wait = Math.Min(options.ReconnectMaxMs, options.ReconnectMinMs * Math.Pow(2, Math.Min(attempt++, 10)));
                await Task.Delay(TimeSpan.FromMilliseconds(wait * (0.5 + jitter.NextDouble() / 2))).ConfigureAwait(false);
            }
        }

        private sealed class AttemptOutcome
        {
            public bool Welcomed;
            public int? CloseCode;
            public string CloseReason;
        }

        /// <summary>One socket: open, hello (with the resume token), read until it closes.</summary>
        private async Task<AttemptOutcome> Attempt(string url)
        {
            var outcome = new AttemptOutcome();
            FoyerSocket s;
            JObject hello;
            try
            {
                var token = await options.Token().ConfigureAwait(false);
                s = await FoyerSocket.OpenAsync(url, options.ConnectTimeoutMs).ConfigureAwait(false);
                hello = new JObject { { "type", "hello" }, { "protocol", ProtocolVersion }, { "token", token } };
            }
            catch (Exception)
            {
                return outcome; // unreachable, or no token: retried after the backoff
            }
            lock (gate)
            {
                if (closedForGood)
                {
                    s.Dispose();
                    return outcome;
                }
                socket = s;
                if (ResumeToken != null) hello["resume"] = ResumeToken;
            }
            var noWelcome = Task.Delay(options.ConnectTimeoutMs).ContinueWith(_ =>
            {
                lock (gate) if (socket != s || welcomed) return;
                s.Abort(); // no welcome in time: given up for the next URL
            });
            try
            {
                await s.SendAsync(hello).ConfigureAwait(false);
                for (;;)
                {
                    var next = await s.ReceiveAsync().ConfigureAwait(false);
                    if (next.IsClose)
                    {
                        outcome.CloseCode = next.CloseCode;
                        outcome.CloseReason = next.CloseReason;
                        break;
                    }
                    var frame = next.Frame as JObject;
                    lock (gate) if (socket != s) break;
                    if (frame != null) Dispatch(s, frame);
                    lock (gate) outcome.Welcomed |= welcomed;
                }
            }
            catch (Exception)
            {
                outcome.CloseCode = outcome.CloseCode ?? 1006;
            }
            lock (gate)
            {
                if (socket == s) socket = null;
                welcomed = false;
            }
            s.Dispose();
            GC.KeepAlive(noWelcome);
            return outcome;
        }

        private void OnWelcome(FoyerSocket s, JObject frame)
        {
            TaskCompletionSource<bool> waiter;
            lock (gate)
            {
                welcomed = true;
                Session = (string)frame["session"];
                ResumeToken = (string)frame["resume"];
                Player = (string)frame["player"]["id"];
                Node = (string)frame["node"];
                Url = s.Url.ToString();
                waiter = welcome;
                welcome = NewWaiter();
            }
            // Re-sent before anyone hears of the welcome, so a call made in a handler is not sent twice.
            pending.ResendAll();
            waiter.TrySetResult(true);
            Raise(Connected, new ConnectedEventArgs { Resumed = (bool?)frame["resumed"] == true, Node = Node, Url = Url });
        }

        /// <summary>A redirect or a moved: this socket is closed (4998) and the next attempt goes to <paramref name="url"/>.</summary>
        private void Follow(FoyerSocket s, string frameType, string why, string url)
        {
            lock (gate)
            {
                if (socket != s || closedForGood) return;
                redirectTo = url;
                socket = null;
                welcomed = false;
            }
            Raise(Moving, new MoveEventArgs { Frame = frameType, Why = why, Url = url });
            s.CloseAsync(4998, "following " + frameType).ContinueWith(_ => s.Abort());
        }

        /// <summary>Sends a request on the welcomed socket; false when there is none (it goes after the next welcome).</summary>
        private bool Transmit(JObject frame)
        {
            FoyerSocket s;
            lock (gate)
            {
                if (!welcomed || socket == null || !socket.IsOpen) return false;
                s = socket;
            }
            s.SendAsync(frame).ContinueWith(t => { var _ = t.Exception; });
            return true;
        }

        private void EndForGood(int code, string reason)
        {
            TaskCompletionSource<bool> waiter;
            lock (gate)
            {
                if (closedForGood) return;
                closedForGood = true;
                waiter = welcome;
            }
            var error = new FoyerException(code == 4001 ? "UNAUTHORIZED" : "UNAVAILABLE", "connection ended: " + code + " " + reason);
            waiter.TrySetException(error);
            pending.FailAll(error);
            Raise(Closed, new CloseEventArgs { Code = code, Reason = reason ?? "" });
        }
    }
}
