using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using static Foyer.Tests.TestHarness;

namespace Foyer.Tests
{
    public static partial class ClientTests
    {
        /// <summary>The high-level API against one node: connect, create, join, ready, leave, refusals, resume, epochs.</summary>
        private static void AddNodeTests(TestHarness harness)
        {
            harness.Add("connect: the welcome names the player and a session; a fresh player is in no lobby", async () =>
            {
                var alice = await Connected("fresh").ConfigureAwait(false);
                Equal(Prefix + "fresh", alice.Player, "the player id is the token's sub");
                Check(alice.Session != null && alice.ResumeToken != null && alice.ResumeToken.StartsWith(alice.Session + "."),
                    "a session and its resume token");
                Check(alice.IsConnected && alice.Lobby == null, "connected, in no lobby");
            });

            harness.Add("create, join by code, ready and leave: every member sees each change", async () =>
            {
                var alice = await Connected("alice").ConfigureAwait(false);
                var bob = await Connected("bob").ConfigureAwait(false);
                var code = await alice.CreateAsync(new JObject { { "public", false } }).ConfigureAwait(false);
                Equal(code, alice.LobbyCode, "the creator's lobby is the new one");
                Equal(alice.Player, (string)alice.Lobby["host"], "the creator hosts it");
                var joined = await bob.JoinAsync("  " + code.ToLowerInvariant() + " ").ConfigureAwait(false);
                Equal(code, joined, "join answers the code (trimmed, upper-cased)");
                await Until(() => MembersOf(alice).Count == 2 && MembersOf(bob).Count == 2, "both see two members").ConfigureAwait(false);

                await bob.ReadyAsync(true).ConfigureAwait(false);
                await Until(() => (bool?)MemberOf(alice, "bob")["ready"] == true, "the host sees bob ready").ConfigureAwait(false);

                string left = null;
                bob.Left += (_, gone) => left = gone;
                await bob.LeaveAsync().ConfigureAwait(false);
                Check(bob.Lobby == null, "the leaver is in no lobby");
                Equal(code, left, "Left names the lobby");
                await Until(() => MembersOf(alice).Count == 1, "the host sees bob gone").ConfigureAwait(false);
            });

            harness.Add("refusals are typed: NOT_FOUND, NOT_IN_LOBBY", async () =>
            {
                var carol = await Connected("carol").ConfigureAwait(false);
                Equal("NOT_FOUND", await Refusal(() => carol.JoinAsync("ZZZZZZ")).ConfigureAwait(false), "join of no lobby");
                Equal("NOT_IN_LOBBY", await Refusal(() => carol.ReadyAsync(true)).ConfigureAwait(false), "ready outside a lobby");
                Equal(0, carol.PendingCount, "a final refusal settles the call");
            });

            harness.Add("a token that does not verify: UNAUTHORIZED, closed for good", async () =>
            {
                var mallory = new FoyerClient(new FoyerClientOptions
                {
                    Urls = new List<string> { Urls[0] },
                    Token = () => Task.FromResult("not.a.token"),
                    EventContext = null,
                });
                int? closed = null;
                mallory.Closed += (_, e) => closed = e.Code;
                Equal("UNAUTHORIZED", await Refusal(() => mallory.ConnectAsync()).ConfigureAwait(false), "connect is refused");
                await Until(() => closed.HasValue, "Closed is raised").ConfigureAwait(false);
                Equal(4001, closed.Value, "the close code");
                Equal("UNAVAILABLE", await Refusal(() => mallory.ReadyAsync(true)).ConfigureAwait(false), "a call after the end");
            });

            harness.Add("resume: after a drop the same session comes back with its lobby; a call made meanwhile is sent after the welcome", async () =>
            {
                var host = await Connected("dana").ConfigureAwait(false);
                var erin = await Connected("erin").ConfigureAwait(false);
                var code = await host.CreateAsync().ConfigureAwait(false);
                await erin.JoinAsync(code).ConfigureAwait(false);
                var session = erin.Session;
                var resumed = new List<bool>();
                erin.Connected += (_, e) => { lock (resumed) resumed.Add(e.Resumed); };
                erin.DropConnection();
                var ready = erin.ReadyAsync(true); // the socket is gone: sent after the next welcome
                await ready.ConfigureAwait(false);
                lock (resumed) Check(resumed.Count >= 1 && resumed.All(r => r), "reconnected with resumed: true");
                Equal(session, erin.Session, "the same session");
                Equal(code, erin.LobbyCode, "the lobby is back");
                await Until(() => (bool?)MemberOf(host, "erin")["ready"] == true && (bool?)MemberOf(host, "erin")["connected"] == true,
                    "the host sees erin back and ready").ConfigureAwait(false);
            });

            harness.Add("a lobby frame of an older epoch, or a repeated seq, does not change the lobby", async () =>
            {
                var fay = await Connected("fay").ConfigureAwait(false);
                var code = await fay.CreateAsync().ConfigureAwait(false);
                await Until(() => fay.Lobby != null, "the lobby frame").ConfigureAwait(false);
                var now = fay.Lobby;
                var older = (JObject)now.DeepClone();
                older["epoch"] = (long)now["epoch"] - 1;
                older["seq"] = (long)now["seq"] + 100;
                older["members"] = new JArray();
                fay.Deliver(older);
                Check(ReferenceEquals(now, fay.Lobby), "an older epoch's frame is dropped (it would have said fay left)");
                var repeat = (JObject)now.DeepClone();
                repeat["host"] = "someone-else";
                fay.Deliver(repeat);
                Equal(fay.Player, (string)fay.Lobby["host"], "a repeated seq is dropped");
                var newer = (JObject)now.DeepClone();
                newer["epoch"] = (long)now["epoch"] + 1;
                newer["seq"] = 1;
                newer["version"] = 999;
                fay.Deliver(newer);
                Equal(999, (int)fay.Lobby["version"], "a newer epoch's frame is taken, from any seq");
                Equal(code, fay.LobbyCode, "still the same lobby");
            });
        }

        /// <summary>Against two nodes of one fleet: a join through the node that does not own the lobby.</summary>
        private static void AddFleetTests(TestHarness harness)
        {
            harness.Add("follow a redirect: a join through the other node ends on the lobby's node, in the same session", async () =>
            {
                var host = await Connected("gil", Urls[0]).ConfigureAwait(false);
                var code = await host.CreateAsync().ConfigureAwait(false);
                var hal = await Connected("hal", Urls[1]).ConfigureAwait(false);
                Check(hal.Node != host.Node, "hal starts on the other node (" + hal.Node + ")");
                var session = hal.Session;
                var moves = new List<MoveEventArgs>();
                hal.Moving += (_, e) => { lock (moves) moves.Add(e); };
                Equal(code, await hal.JoinAsync(code).ConfigureAwait(false), "the join is applied on the lobby's node");
                lock (moves) Check(moves.Count >= 1 && moves[0].Frame == "redirect" && moves[0].Why == "lobby", "a redirect (lobby) was followed");
                Equal(host.Node, hal.Node, "hal is now served by the lobby's node");
                Equal(session, hal.Session, "the same session (resumed)");
                await Until(() => MembersOf(host).Count == 2, "the host sees hal").ConfigureAwait(false);
                await hal.ReadyAsync(true).ConfigureAwait(false);
                await Until(() => (bool?)MemberOf(host, "hal")["ready"] == true, "later requests reach the lobby").ConfigureAwait(false);
            });
        }
    }
}
