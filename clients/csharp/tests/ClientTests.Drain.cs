using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Threading.Tasks;
using static Foyer.Tests.TestHarness;

namespace Foyer.Tests
{
    public static partial class ClientTests
    {
        /// <summary>
        /// A drain of node 1 (its admin API's POST /drain) moves its lobby to node 2: each member is told
        /// `moved`, follows it, resumes the same session there and keeps the lobby, now under a newer epoch.
        /// Node 1 leaves the fleet, so this test runs last.
        /// </summary>
        private static void AddDrainTest(TestHarness harness)
        {
            harness.Add("follow a moved: a drain of the lobby's node moves its members, in their sessions, to the peer", async () =>
            {
                var host = await Connected("ivy", Urls[0]).ConfigureAwait(false);
                var guest = await Connected("jon", Urls[0]).ConfigureAwait(false);
                var code = await host.CreateAsync().ConfigureAwait(false);
                await guest.JoinAsync(code).ConfigureAwait(false);
                await Until(() => MembersOf(host).Count == 2, "both in the lobby").ConfigureAwait(false);
                var epoch = (long)host.Lobby["epoch"];
                var drainedNode = host.Node;
                var sessions = new[] { host.Session, guest.Session };
                var moves = new List<MoveEventArgs>();
                foreach (var client in new[] { host, guest }) client.Moving += (_, e) => { lock (moves) moves.Add(e); };

                await Drain(adminUrl).ConfigureAwait(false);
                await Until(() => host.Node != drainedNode && guest.Node != drainedNode && host.IsConnected && guest.IsConnected,
                    "both members are served by the peer", 30000).ConfigureAwait(false);
                lock (moves)
                    Check(moves.Exists(m => m.Frame == "moved" && m.Why == "lobby/" + code), "a moved for the lobby was followed");
                Equal(sessions[0], host.Session, "the host's session");
                Equal(sessions[1], guest.Session, "the guest's session");
                await Until(() => host.Lobby != null && (long)host.Lobby["epoch"] > epoch, "the lobby under its new owner's epoch", 30000)
                    .ConfigureAwait(false);
                Equal(code, host.LobbyCode, "the same lobby");
                await guest.ReadyAsync(true).ConfigureAwait(false);
                await Until(() => (bool?)MemberOf(host, "jon")["ready"] == true, "a request after the move reaches the lobby")
                    .ConfigureAwait(false);
            });
        }

        /// <summary>POST /drain until the node takes it (202); 409 while it has not yet heard its peer live.</summary>
        private static async Task Drain(string admin)
        {
            using (var http = new HttpClient())
            {
                for (var attempt = 0; ; attempt++)
                {
                    var response = await http.PostAsync(new Uri(new Uri(admin), "/drain"), new StringContent("")).ConfigureAwait(false);
                    if (response.StatusCode == HttpStatusCode.Accepted) return;
                    if (attempt > 50) throw new TestFailure("the drain was refused: " + (int)response.StatusCode + " " + await response.Content.ReadAsStringAsync().ConfigureAwait(false));
                    await Task.Delay(200).ConfigureAwait(false);
                }
            }
        }
    }
}
