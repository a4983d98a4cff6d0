using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Foyer.Conformance
{
    /// <summary>A scenario client's socket: the messages it received and not yet consumed, and its close.</summary>
    public sealed class ScenarioSocket
    {
        public readonly FoyerSocket Socket;
        private readonly Queue<Incoming> inbox = new Queue<Incoming>();
        private readonly object gate = new object();
        private TaskCompletionSource<bool> wake = new TaskCompletionSource<bool>();
        private Incoming closed;
        private int arrivals;

        private ScenarioSocket(FoyerSocket socket)
        {
            Socket = socket;
            Task.Run(ReadLoop);
        }

        public static async Task<ScenarioSocket> Open(string url)
        {
            return new ScenarioSocket(await FoyerSocket.OpenAsync(url).ConfigureAwait(false));
        }

        private async Task ReadLoop()
        {
            for (;;)
            {
                var next = await Socket.ReceiveAsync().ConfigureAwait(false);
                lock (gate)
                {
                    if (next.IsClose) closed = next;
                    else inbox.Enqueue(next);
                    arrivals++;
                    var w = wake;
                    wake = new TaskCompletionSource<bool>();
                    w.TrySetResult(true);
                }
                if (next.IsClose) return;
            }
        }

        /// <summary>The close, once it arrived (code and reason), or null.</summary>
        public Incoming Closed
        {
            get { lock (gate) return closed; }
        }

        /// <summary>The next unread message, or null.</summary>
        public Incoming Shift()
        {
            lock (gate) return inbox.Count > 0 ? inbox.Dequeue() : null;
        }

        /// <summary>The next unread message without taking it, or null.</summary>
        public Incoming Peek()
        {
            lock (gate) return inbox.Count > 0 ? inbox.Peek() : null;
        }

        /// <summary>How many messages (the close included) arrived so far: read it before looking at the inbox, and
        /// pass it to <see cref="Changed"/>, so that one arriving between the look and the wait is not missed.</summary>
        public int Arrivals
        {
            get { lock (gate) return arrivals; }
        }

        /// <summary>True at once when a message or the close arrived since <paramref name="seen"/> arrivals; otherwise
        /// waits until one does, or the deadline passes (then false).</summary>
        public async Task<bool> Changed(int seen, DateTime deadline)
        {
            Task signal;
            lock (gate)
            {
                if (arrivals != seen) return true;
                signal = wake.Task;
            }
            var left = deadline - DateTime.UtcNow;
            if (left <= TimeSpan.Zero) return false;
            var first = await Task.WhenAny(signal, Task.Delay(left)).ConfigureAwait(false);
            return first == signal;
        }
    }
}
