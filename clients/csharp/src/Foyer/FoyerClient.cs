using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer
{
    /// <summary>
    /// A Foyer client (docs/protocol.md) in JSON text frames: it says hello with the player's token, keeps the
    /// newest resume token and resumes the session after any drop (with backoff, over its bootstrap URLs),
    /// numbers requests and re-sends unanswered ones with their ids after every welcome (the node applies an
    /// id once), retries retryable refusals, follows <c>redirect</c> and <c>moved</c>, and keeps the player's
    /// lobby from the node's <c>lobby</c> frames, dropping frames of an older epoch.
    /// </summary>
    public sealed partial class FoyerClient : IDisposable
    {
        private readonly FoyerClientOptions options;
        private readonly object gate = new object();
        private readonly PendingCalls pending;
        private readonly EpochFilter epochs = new EpochFilter();
        private long nextId = 1;

        /// <summary>The player's id (the token's <c>sub</c>), once welcomed.</summary>
        public string Player { get; private set; }
        /// <summary>The session's id, and its newest resume token (kept for the next hello).</summary>
        public string Session { get; private set; }
        public string ResumeToken { get; private set; }
        /// <summary>The node serving the client, and its URL.</summary>
        public string Node { get; private set; }
        public string Url { get; private set; }
        /// <summary>The latest <c>lobby</c> frame of the player's lobby, or null when in none.</summary>
        public JObject Lobby { get; private set; }
        /// <summary>The lobby's invite code, or null.</summary>
        public string LobbyCode { get { var lobby = Lobby; return lobby == null ? null : (string)lobby["code"]; } }

        /// <summary>Each welcome.</summary>
        public event EventHandler<ConnectedEventArgs> Connected;
        /// <summary>A welcomed socket was lost; the client reconnects and resumes by itself.</summary>
        public event EventHandler<CloseEventArgs> Disconnected;
        /// <summary>The connection ended for good: <see cref="CloseAsync"/>, a refused token (4001), a newer login (4031), an unspoken protocol (4000).</summary>
        public event EventHandler<CloseEventArgs> Closed;
        /// <summary>The player's lobby changed (a join, a leave, ready, its data…): the new <c>lobby</c> frame.</summary>
        public event EventHandler<JObject> LobbyChanged;
        /// <summary>The player is no longer in the lobby with this code (left, kicked, away past its grace).</summary>
        public event EventHandler<string> Left;
        /// <summary>A <c>redirect</c> or <c>moved</c> is being followed.</summary>
        public event EventHandler<MoveEventArgs> Moving;
        /// <summary>Every other frame from the node (room, activity, matchmaking, chat, kicked…), older epochs dropped.</summary>
        public event EventHandler<JObject> Push;
        /// <summary>An error frame answering no request (a malformed frame).</summary>
        public event EventHandler<FoyerException> Error;

        public FoyerClient(FoyerClientOptions options)
        {
            if (options == null || options.Urls == null || options.Urls.Count == 0) throw new ArgumentException("FoyerClientOptions.Urls: give at least one node URL");
            if (options.Token == null) throw new ArgumentException("FoyerClientOptions.Token: give a token source");
            this.options = options;
            pending = new PendingCalls(Transmit);
        }

        /// <summary>A client of the nodes at <paramref name="urls"/> with a fixed token.</summary>
        public FoyerClient(string token, params string[] urls)
            : this(new FoyerClientOptions { Urls = urls.ToList(), Token = () => Task.FromResult(token) })
        {
        }

        /// <summary>Sends a request (<c>type</c> and its fields) and returns its result's <c>value</c>; throws <see cref="FoyerException"/> on a refusal or TIMEOUT.</summary>
        public Task<JToken> CallAsync(string type, JObject fields = null, int? timeoutMs = null)
        {
            var frame = new JObject { { "type", type } };
            if (fields != null)
                foreach (var property in fields.Properties())
                    if (property.Name != "type" && property.Name != "id") frame[property.Name] = property.Value.DeepClone();
            lock (gate)
            {
                if (closedForGood) return Failed("the client is closed");
                frame["id"] = nextId++;
            }
            return pending.Add(frame, timeoutMs ?? options.CallTimeoutMs);
        }

        /// <summary>Creates a lobby (fields: <c>public</c>, <c>metadata</c>, <c>data</c>, <c>maxMembers</c>…) and returns its code.</summary>
        public async Task<string> CreateAsync(JObject fields = null)
        {
            var value = await CallAsync("create", fields).ConfigureAwait(false);
            return (string)value["code"];
        }

        /// <summary>Joins the lobby with this invite code (following a redirect to its node) and returns the code.</summary>
        public async Task<string> JoinAsync(string code, string password = null)
        {
            var fields = new JObject { { "code", code } };
            if (password != null) fields["password"] = password;
            var value = await CallAsync("join", fields).ConfigureAwait(false);
            return (string)value["code"];
        }

        /// <summary>Sets the player's ready flag in its lobby.</summary>
        public Task ReadyAsync(bool ready = true)
        {
            return CallAsync("ready", new JObject { { "ready", ready } });
        }

        /// <summary>Leaves the lobby; the answer is the news: <see cref="Lobby"/> is then null and <see cref="Left"/> is raised.</summary>
        public async Task LeaveAsync()
        {
            await CallAsync("leave").ConfigureAwait(false);
            JObject was;
            lock (gate)
            {
                was = Lobby;
                Lobby = null;
            }
            if (was != null) Raise(Left, (string)was["code"]);
        }

        /// <summary>Requests sent and not yet answered.</summary>
        public int PendingCount { get { return pending.Count; } }

        private static Task<JToken> Failed(string message)
        {
            var failed = new TaskCompletionSource<JToken>();
            failed.SetException(new FoyerException("UNAVAILABLE", message));
            return failed.Task;
        }

        /// <summary>For tests: a frame as if the current socket delivered it.</summary>
        internal void Deliver(JObject frame)
        {
            FoyerSocket current;
            lock (gate) current = socket;
            Dispatch(current, frame);
        }

        /// <summary>A frame of the current socket.</summary>
        private void Dispatch(FoyerSocket socket, JObject frame)
        {
            var type = FoyerJson.TypeOf(frame);
            switch (type)
            {
                case "welcome":
                    OnWelcome(socket, frame);
                    return;
                case "result":
                    lock (gate) redirectsInARow = 0;
                    pending.Settle((long)frame["id"], frame["value"]);
                    return;
                case "error":
                    OnError(frame);
                    return;
                case "redirect":
                    Follow(socket, "redirect", (string)frame["reason"], (string)frame["url"]);
                    return;
                case "moved":
                    // A client holding one socket may treat `moved` as a redirect (docs/protocol.md): its
                    // requests wait for the welcome there and are re-sent with their ids.
                    Follow(socket, "moved", (string)frame["key"], (string)frame["url"]);
                    return;
                case "pong":
                    return;
            }
            if (!epochs.Admit(frame)) return;
            if (type == "lobby") OnLobby(frame);
            else if (type == "noLobby") OnNoLobby();
            else Raise(Push, frame);
        }

        private void OnError(JObject frame)
        {
            var retry = frame["retryAfterMs"];
            var retryAfterMs = retry == null || retry.Type == JTokenType.Null ? (int?)null : (int)retry;
            var code = (string)frame["code"];
            var message = (string)frame["message"] ?? "";
            if (frame["id"] == null) Raise(Error, new FoyerException(code, message, retryAfterMs));
            else pending.Refused((long)frame["id"], code, message, retryAfterMs);
        }

        private void OnLobby(JObject frame)
        {
            var members = frame["members"] as JArray;
            var inIt = members != null && members.Any(m => (string)m["player"] == Player);
            JObject was;
            lock (gate)
            {
                was = Lobby;
                if (inIt) Lobby = frame;
                else if (was != null && (string)was["key"] == (string)frame["key"]) Lobby = null;
                else return;
            }
            if (inIt) Raise(LobbyChanged, frame);
            else Raise(Left, (string)frame["code"]);
        }

        /// <summary>Away past its grace: the lobby this client still shows let it go meanwhile.</summary>
        private void OnNoLobby()
        {
            JObject was;
            lock (gate)
            {
                was = Lobby;
                Lobby = null;
            }
            if (was != null) Raise(Left, (string)was["code"]);
        }

        private void Raise<T>(EventHandler<T> handler, T args)
        {
            if (handler == null) return;
            var context = options.EventContext;
            if (context != null) context.Post(_ => handler(this, args), null);
            else handler(this, args);
        }
    }
}
