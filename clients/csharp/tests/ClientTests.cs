using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Foyer.Conformance;
using Newtonsoft.Json.Linq;
using static Foyer.Tests.TestHarness;

namespace Foyer.Tests
{
    /// <summary>
    /// The C# client's tests against a real node: <c>mono foyer-client-tests.exe --url ws://… [--url ws://…]
    /// --token-key kid:secret --scenarios conformance/scenarios</c>. With a second --url (another node of the
    /// same fleet) it also follows a redirect. Exits 1 when a test failed.
    /// </summary>
    public static partial class ClientTests
    {
        private static readonly List<string> Urls = new List<string>();
        private static string tokenKey;
        /// <summary>The admin API of node 1 (--admin): the drain test takes that node out of the fleet, so it runs last.</summary>
        private static string adminUrl;
        private static string scenariosDir;
        private static readonly string Prefix = "cs" + Guid.NewGuid().ToString("N").Substring(0, 8) + "-";
        private static readonly List<FoyerClient> Clients = new List<FoyerClient>();

        public static int Main(string[] args)
        {
            for (var i = 0; i + 1 < args.Length; i += 2)
            {
                if (args[i] == "--url") Urls.Add(args[i + 1]);
                else if (args[i] == "--token-key") tokenKey = args[i + 1];
                else if (args[i] == "--scenarios") scenariosDir = args[i + 1];
                else if (args[i] == "--admin") adminUrl = args[i + 1];
                else
                {
                    Console.WriteLine("unknown option " + args[i]);
                    return 2;
                }
            }
            if (Urls.Count == 0 || tokenKey == null || scenariosDir == null)
            {
                Console.WriteLine("usage: foyer-client-tests.exe --url ws://… [--url ws://… [--admin http://…]] --token-key kid:secret --scenarios DIR");
                return 2;
            }
            var harness = new TestHarness();
            AddOfflineTests(harness);
            AddNodeTests(harness);
            if (Urls.Count >= 2) AddFleetTests(harness);
            else harness.Skip("fleet tests (redirect)", "need 2 nodes of one fleet, given 1 URL");
            if (Urls.Count >= 2 && adminUrl != null) AddDrainTest(harness);
            else harness.Skip("the drain test (moved)", "needs 2 nodes of one fleet and --admin, node 1's admin API");
            var failed = harness.Run(30000);
            foreach (var client in Clients) client.CloseAsync().Wait(2000);
            return failed == 0 ? 0 : 1;
        }

        /// <summary>A client of <paramref name="player"/> (its id gets the run's prefix) for these nodes, closed at the end.</summary>
        private static FoyerClient NewClient(string player, params string[] urls)
        {
            var id = Prefix + player;
            var client = new FoyerClient(new FoyerClientOptions
            {
                Urls = urls.Length > 0 ? urls.ToList() : new List<string> { Urls[0] },
                Token = () => Task.FromResult(PlayerTokens.Sign(tokenKey, id, player)),
                ReconnectMinMs = 50,
                ReconnectMaxMs = 500,
                EventContext = null,
            });
            lock (Clients) Clients.Add(client);
            return client;
        }

        private static async Task<FoyerClient> Connected(string player, params string[] urls)
        {
            var client = NewClient(player, urls);
            await client.ConnectAsync().ConfigureAwait(false);
            return client;
        }

        private static JArray MembersOf(FoyerClient client)
        {
            var lobby = client.Lobby;
            return lobby == null ? new JArray() : (JArray)lobby["members"];
        }

        private static JToken MemberOf(FoyerClient viewer, string player)
        {
            return MembersOf(viewer).FirstOrDefault(m => (string)m["player"] == Prefix + player);
        }

        /// <summary>Tests that need no node: the epoch filter and the matching rules.</summary>
        private static void AddOfflineTests(TestHarness harness)
        {
            harness.Add("the epoch filter drops an older epoch and a repeated or older seq, per key", () =>
            {
                var filter = new EpochFilter();
                Check(filter.Admit("lobby/A", 2, 5), "the first frame of a key is news");
                Check(!filter.Admit("lobby/A", 2, 5), "the same seq again is a repeat");
                Check(!filter.Admit("lobby/A", 2, 4), "a lower seq of the epoch is old");
                Check(!filter.Admit("lobby/A", 1, 99), "an older epoch is dropped whatever its seq");
                Check(filter.Admit("lobby/A", 3, 1), "a newer epoch starts again from any seq");
                Check(filter.Admit("lobby/B", 1, 1), "another key is apart");
                Check(filter.Admit(new JObject { { "type", "noLobby" } }), "a frame about no key is news");
                return Task.FromResult(0);
            });
            harness.Add("the matching rules: subsets, $absent, numbers by value, variables, $$ literals", () =>
            {
                var vars = new Dictionary<string, JToken> { { "alice", "p-alice" } };
                var frame = FoyerJson.Parse("{\"type\":\"lobby\",\"n\":1.0,\"host\":\"p-alice\",\"code\":\"ABC\",\"at\":\"2026-12-02T04:00:00Z\"}");
                var ok = Match.Run(FoyerJson.Parse("{\"type\":\"lobby\",\"n\":1,\"host\":\"$alice\",\"code\":\"$code\",\"id\":\"$absent\",\"at\":\"$string\"}"), frame, vars);
                Check(ok.Ok, "the pattern matches: " + ok.Path + " " + ok.Reason);
                Equal("ABC", (string)ok.Bound["code"], "an unbound variable binds");
                var miss = Match.Run(FoyerJson.Parse("{\"host\":\"$$alice\"}"), frame, vars);
                Check(!miss.Ok && miss.Path == "host", "$$alice is the literal \"$alice\", not the variable");
                var absent = Match.Run(FoyerJson.Parse("{\"code\":\"$absent\"}"), frame, vars);
                Check(!absent.Ok && absent.Path == "code", "$absent fails on a present key");
                var array = Match.Run(FoyerJson.Parse("{\"a\":[1,2]}"), FoyerJson.Parse("{\"a\":[1,2,3]}"), vars);
                Check(!array.Ok && array.Reason.StartsWith("expected 2 elements"), "arrays are matched whole: " + array.Reason);
                return Task.FromResult(0);
            });
            harness.Add("the runner fails a wrong expectation, naming the scenario, the step, the path and both values", async () =>
            {
                var scenario = Scenarios.Load(scenariosDir).Single(s => (string)s["name"] == "hello-welcome");
                scenario["steps"][2]["expect"]["player"] = new JObject { { "id", "$alice" }, { "name", "Alicia" } };
                var result = await Runner.RunScenario(scenario, RunOptions()).ConfigureAwait(false);
                Check(!result.Ok, "the run fails");
                Equal(2, result.Passed, "steps passed before the wrong one");
                Check(result.Failure.Contains("hello-welcome [json] step 3 (alice expect)"), "names the step: " + result.Failure);
                Check(result.Failure.Contains("at player.name: expected \"Alicia\", got \"Alice\""), "names the path and values: " + result.Failure);
            });
            harness.Add("the runner fails a frame where nothing was expected and an unbound variable", async () =>
            {
                var quiet = (JObject)FoyerJson.Parse(@"{""name"":""quiet"",""clients"":{""alice"":{""name"":""Alice""}},""steps"":[
                    {""client"":""alice"",""connect"":true},
                    {""client"":""alice"",""send"":{""type"":""hello"",""protocol"":1,""token"":""$token""}},
                    {""client"":""alice"",""expectAll"":[{""type"":""welcome""},{""type"":""noLobby""}]},
                    {""client"":""alice"",""send"":{""type"":""ping"",""t"":1}},
                    {""client"":""alice"",""expectNothing"":1000,""note"":""wrong on purpose""},
                    {""client"":""alice"",""send"":{""type"":""join"",""id"":1,""code"":""$nothing""}}]}");
                var result = await Runner.RunScenario(quiet, RunOptions()).ConfigureAwait(false);
                Check(result.Failure.Contains("step 5 (alice expectNothing) \"wrong on purpose\": expected no frame") &&
                      result.Failure.Contains("\"type\":\"pong\""), "the pong fails expectNothing: " + result.Failure);
                ((JArray)quiet["steps"]).RemoveAt(4);
                var unbound = await Runner.RunScenario(quiet, RunOptions()).ConfigureAwait(false);
                Check(unbound.Failure != null && unbound.Failure.Contains("step 5 (alice send): variable $nothing is not bound yet"),
                    "an unbound variable fails its send: " + unbound.Failure);
            });
            harness.Add("the runner's socket sees a frame that arrived between a look at its inbox and the wait", async () =>
            {
                var socket = await ScenarioSocket.Open(Urls[0]).ConfigureAwait(false);
                try
                {
                    var seen = socket.Arrivals;
                    Check(socket.Shift() == null, "nothing came before the hello");
                    var token = PlayerTokens.Sign(tokenKey, Prefix + "looker", "Looker");
                    await socket.Socket.SendAsync(new JObject { { "type", "hello" }, { "protocol", 1 }, { "token", token } }).ConfigureAwait(false);
                    var until = DateTime.UtcNow.AddSeconds(5);
                    while (socket.Peek() == null && DateTime.UtcNow < until) await Task.Delay(5).ConfigureAwait(false);
                    Check(socket.Peek() != null, "the welcome came");
                    var changed = await socket.Changed(seen, DateTime.UtcNow.AddMilliseconds(1000)).ConfigureAwait(false);
                    Check(changed, "the wait answers at once for the welcome that came after the look, before the wait");
                }
                finally
                {
                    await socket.Socket.CloseAsync(1000).ConfigureAwait(false);
                }
            });
        }

        private static RunOptions RunOptions()
        {
            return new RunOptions
            {
                Urls = Urls,
                TimeoutMs = 2000,
                TokenFor = (player, name) => Task.FromResult(PlayerTokens.Sign(tokenKey, player, name)),
            };
        }
    }
}
