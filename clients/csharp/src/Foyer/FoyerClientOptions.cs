using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Foyer
{
    /// <summary>How a <see cref="FoyerClient"/> connects.</summary>
    public sealed class FoyerClientOptions
    {
        /// <summary>The bootstrap URLs (<c>ws://host:port/ws</c>), tried in turn; any node of a fleet will do.</summary>
        public IList<string> Urls = new List<string>();

        /// <summary>The player's token, fetched before every connect (from your game's backend): a token may expire between reconnects.</summary>
        public Func<Task<string>> Token;

        /// <summary>A call's deadline, retries included (10 s); past it the call fails with TIMEOUT.</summary>
        public int CallTimeoutMs = 10000;

        /// <summary>How long <see cref="FoyerClient.ConnectAsync"/> waits for a welcome (10 s); an attempt without one is given up for the next URL.</summary>
        public int ConnectTimeoutMs = 10000;

        /// <summary>The reconnect backoff: doubling from the least to the most, with jitter.</summary>
        public int ReconnectMinMs = 200;
        public int ReconnectMaxMs = 5000;

        /// <summary>
        /// Where events are raised: by default the <see cref="SynchronizationContext"/> current when these
        /// options were made (Unity's main thread, when made there); with none, on the client's reader thread.
        /// </summary>
        public SynchronizationContext EventContext = SynchronizationContext.Current;
    }

    /// <summary>A welcome: the session was opened (or resumed, with the same request ids still counting).</summary>
    public sealed class ConnectedEventArgs : EventArgs
    {
        public bool Resumed;
        public string Node;
        public string Url;
    }

    /// <summary>A socket closed: the client reconnects by itself unless <see cref="FoyerClient.Closed"/> follows.</summary>
    public sealed class CloseEventArgs : EventArgs
    {
        public int Code;
        public string Reason;
    }

    /// <summary>A <c>redirect</c> or a <c>moved</c> the client follows.</summary>
    public sealed class MoveEventArgs : EventArgs
    {
        /// <summary><c>redirect</c> or <c>moved</c>.</summary>
        public string Frame;
        /// <summary>The redirect's reason (<c>lobby</c>, <c>drain</c>, …) or the moved key (<c>lobby/Y9X3NR</c>).</summary>
        public string Why;
        public string Url;
    }
}
