using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer.Conformance
{
    /// <summary>One scenario's outcome (JSON encoding: this runner speaks JSON text frames only).</summary>
    public sealed class ScenarioResult
    {
        public string Scenario;
        public bool Ok;
        public int Passed;
        public int Steps;
        public string Failure;
        /// <summary>Why it was not run (it needs more nodes than the runner was given); Ok is then false.</summary>
        public string Skipped;
    }

    public sealed class RunOptions
    {
        /// <summary>The fleet's WebSocket URLs: node 1 first.</summary>
        public IList<string> Urls;
        /// <summary>Each node's admin API URL, in the order of <see cref="Urls"/>, for the scenarios that drain a node.</summary>
        public IList<string> AdminUrls = new List<string>();
        /// <summary>A token for a player id and display name.</summary>
        public Func<string, string, Task<string>> TokenFor;
        public int TimeoutMs = 5000;
    }

    /// <summary>A step failed: the message says what was wrong.</summary>
    public sealed class StepFailure : Exception
    {
        public StepFailure(string message) : base(message) { }
    }

    /// <summary>
    /// Plays a conformance scenario (docs/conformance.md) against a node over the C# client's transport,
    /// <see cref="FoyerSocket"/>, in JSON text frames: a port of ops/conformance/runner.ts.
    /// </summary>
    public static class Runner
    {
        private static readonly string[] Kinds =
            { "connect", "send", "sendRaw", "expect", "expectAll", "expectNothing", "expectClose", "close", "drain" };

        public static string DescribeStep(JObject step, int index)
        {
            if (step == null) return "step " + (index + 1);
            var kind = Kinds.FirstOrDefault(k => step[k] != null) ?? "?";
            var note = step["note"] == null ? "" : " \"" + (string)step["note"] + "\"";
            return "step " + (index + 1) + " (" + (string)step["client"] + " " + kind + ")" + note;
        }

        /// <summary>Plays one scenario and reports the first failing step, if any. Closes its sockets.</summary>
        public static async Task<ScenarioResult> RunScenario(JObject scenario, RunOptions options)
        {
            var name = (string)scenario["name"];
            var steps = (JArray)scenario["steps"];
            var result = new ScenarioResult { Scenario = name, Steps = steps.Count };
            var needs = scenario["nodes"] == null ? 1 : (int)scenario["nodes"];
            if (needs > options.Urls.Count)
            {
                result.Skipped = "needs " + needs + " nodes of one fleet, given " + options.Urls.Count + " URL" +
                                 (options.Urls.Count == 1 ? "" : "s");
                return result;
            }
            foreach (JObject step in steps)
            {
                if (step["drain"] == null) continue;
                var node = (int)step["drain"];
                if (node > options.AdminUrls.Count)
                {
                    result.Skipped = "drains node " + node + ": needs its admin API URL";
                    return result;
                }
            }
            var prefix = "cf" + RandomHex(4) + "-";
            var run = new Run { Options = options };
            foreach (var client in ((JObject)scenario["clients"]).Properties())
            {
                var player = prefix + client.Name;
                run.Vars[client.Name] = new JValue(player);
                run.Tokens[client.Name] = await options.TokenFor(player, (string)client.Value["name"]).ConfigureAwait(false);
            }
            var index = 0;
            try
            {
                foreach (JObject step in steps)
                {
                    await run.Play(step).ConfigureAwait(false);
                    index++;
                }
                result.Ok = true;
                result.Passed = index;
            }
            catch (Exception error)
            {
                var message = error is AggregateException && error.InnerException != null ? error.InnerException.Message : error.Message;
                result.Passed = index;
                result.Failure = name + " [json] " + DescribeStep(index < steps.Count ? (JObject)steps[index] : null, index) + ": " + message;
            }
            finally
            {
                foreach (var socket in run.Sockets.Values) socket.Socket.Dispose();
            }
            return result;
        }

        private static string RandomHex(int bytes)
        {
            var buffer = new byte[bytes];
            using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(buffer);
            return string.Concat(buffer.Select(b => b.ToString("x2")));
        }

        /// <summary>One scenario's run: its variables, tokens and sockets.</summary>
        private sealed class Run
        {
            public RunOptions Options;
            public readonly Dictionary<string, JToken> Vars = new Dictionary<string, JToken>();
            public readonly Dictionary<string, string> Tokens = new Dictionary<string, string>();
            public readonly Dictionary<string, ScenarioSocket> Sockets = new Dictionary<string, ScenarioSocket>();

            private int TimeoutOf(JObject step)
            {
                return step["timeoutMs"] == null ? Options.TimeoutMs : (int)step["timeoutMs"];
            }

            public async Task Play(JObject step)
            {
                var client = (string)step["client"];
                ScenarioSocket socket;
                Sockets.TryGetValue(client, out socket);
                if (step["drain"] != null)
                {
                    await Drain(Options.AdminUrls[(int)step["drain"] - 1], TimeoutOf(step)).ConfigureAwait(false);
                    return;
                }
                if (step["connect"] != null)
                {
                    if (socket != null && socket.Closed == null) throw new StepFailure("the client already has an open socket");
                    if (socket != null) socket.Socket.Dispose();
                    Sockets[client] = await ScenarioSocket.Open(ConnectUrl(step)).ConfigureAwait(false);
                    return;
                }
                if (socket == null) throw new StepFailure("the client has no socket: connect it first");
                if (step["send"] != null) await Send(step, client, socket).ConfigureAwait(false);
                else if (step["sendRaw"] != null) await SendRaw(step, socket).ConfigureAwait(false);
                else if (step["close"] != null) await Close(socket, TimeoutOf(step)).ConfigureAwait(false);
                else if (step["expectNothing"] != null) await ExpectNothing(step, socket).ConfigureAwait(false);
                else if (step["expectClose"] != null) await ExpectClose(step, socket).ConfigureAwait(false);
                else if (step["expect"] != null || step["expectAll"] != null) await ExpectFrames(step, socket).ConfigureAwait(false);
                else throw new StepFailure("a step of no known kind");
            }

            /// <summary>POST /drain on the node's admin API until it is accepted (202); 409 while it has no live peer yet.</summary>
            private static async Task Drain(string admin, int timeoutMs)
            {
                var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
                using (var http = new HttpClient())
                {
                    for (;;)
                    {
                        var response = await http.PostAsync(new Uri(new Uri(admin), "/drain"), new StringContent("")).ConfigureAwait(false);
                        if (response.StatusCode == HttpStatusCode.Accepted) return;
                        var why = (int)response.StatusCode + " " + await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                        if ((int)response.StatusCode != 409 || DateTime.UtcNow > deadline) throw new StepFailure("the drain was refused: " + why);
                        await Task.Delay(100).ConfigureAwait(false);
                    }
                }
            }

            private string ConnectUrl(JObject step)
            {
                if (step["url"] != null)
                {
                    var url = Match.Substitute(step["url"], Vars);
                    if (url.Type != JTokenType.String) throw new StepFailure("the url to connect to is not a string: " + Match.Show(url));
                    return (string)url;
                }
                var node = step["node"] == null ? 1 : (int)step["node"];
                if (node > Options.Urls.Count) throw new StepFailure("no node " + node + ": the runner has " + Options.Urls.Count);
                return Options.Urls[node - 1];
            }

            private async Task Send(JObject step, string client, ScenarioSocket socket)
            {
                var vars = new Dictionary<string, JToken>(Vars);
                vars["token"] = new JValue(Tokens[client]);
                JToken frame;
                try
                {
                    frame = Match.Substitute(step["send"], vars);
                }
                catch (InvalidOperationException error)
                {
                    throw new StepFailure(error.Message);
                }
                var closed = socket.Closed;
                if (closed != null) throw new StepFailure("the socket is closed (" + closed.CloseCode + "); cannot send");
                var repeat = step["repeat"] == null ? 1 : (int)step["repeat"];
                for (var i = 0; i < repeat; i++)
                {
                    try
                    {
                        await socket.Socket.SendAsync(frame).ConfigureAwait(false);
                    }
                    catch (Exception) when (!socket.Socket.IsOpen)
                    {
                        return; // closed by the node mid-flood (the rate limit): the next step sees the close
                    }
                }
            }

            private static async Task SendRaw(JObject step, ScenarioSocket socket)
            {
                var closed = socket.Closed;
                if (closed != null) throw new StepFailure("the socket is closed (" + closed.CloseCode + "); cannot send");
                await socket.Socket.SendTextAsync((string)step["sendRaw"]["json"]).ConfigureAwait(false);
            }

            private static async Task Close(ScenarioSocket socket, int timeoutMs)
            {
                if (socket.Closed != null) return;
                await socket.Socket.CloseAsync(1000).ConfigureAwait(false);
                var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
                for (;;)
                {
                    var seen = socket.Arrivals;
                    if (socket.Closed != null) return;
                    if (!await socket.Changed(seen, deadline).ConfigureAwait(false)) throw new StepFailure("the socket did not close");
                }
            }

            private static async Task ExpectNothing(JObject step, ScenarioSocket socket)
            {
                var ms = (int)step["expectNothing"];
                await Task.Delay(ms).ConfigureAwait(false);
                var first = socket.Peek();
                if (first != null) throw new StepFailure("expected no frame within " + ms + " ms, got " + ShowIncoming(first));
                var closed = socket.Closed;
                if (closed != null) throw new StepFailure("expected no frame, but the socket closed with " + closed.CloseCode);
            }

            private async Task ExpectClose(JObject step, ScenarioSocket socket)
            {
                var code = (int)step["expectClose"];
                var skipping = Skipping(step);
                var timeoutMs = TimeoutOf(step);
                var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
                for (;;)
                {
                    var seen = socket.Arrivals;
                    var next = socket.Shift();
                    if (next != null)
                    {
                        if (next.Frame != null && skipping.Contains(FoyerJson.TypeOf(next.Frame))) continue;
                        throw new StepFailure("expected close " + code + ", got the frame " + ShowIncoming(next));
                    }
                    if (socket.Closed != null) break;
                    if (!await socket.Changed(seen, deadline).ConfigureAwait(false))
                        throw new StepFailure("expected close " + code + ", but the socket is still open after " + timeoutMs + " ms");
                }
                var closed = socket.Closed;
                if (closed.CloseCode != code)
                    throw new StepFailure("expected close " + code + ", got close " + closed.CloseCode + " (" + FoyerJson.Write(new JValue(closed.CloseReason)) + ")");
            }

            private async Task ExpectFrames(JObject step, ScenarioSocket socket)
            {
                var skipping = Skipping(step);
                var patterns = step["expect"] != null ? new List<JToken> { step["expect"] } : ((JArray)step["expectAll"]).ToList();
                var timeoutMs = TimeoutOf(step);
                var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
                while (patterns.Count > 0)
                {
                    var seen = socket.Arrivals;
                    var next = socket.Shift();
                    if (next == null)
                    {
                        var closed = socket.Closed;
                        if (closed != null)
                            throw new StepFailure("expected " + Match.Show(patterns[0]) + ", but the socket closed with " + closed.CloseCode +
                                                  " (" + FoyerJson.Write(new JValue(closed.CloseReason)) + ")");
                        if (!await socket.Changed(seen, deadline).ConfigureAwait(false))
                            throw new StepFailure("expected " + Match.Show(patterns[0]) + ", but no frame came within " + timeoutMs + " ms");
                        continue;
                    }
                    if (next.Binary) throw new StepFailure("the node answered in binary on a JSON connection: " + ShowIncoming(next));
                    var frame = next.Frame ?? new JObject { { "undecodable", next.Text.Length > 200 ? next.Text.Substring(0, 200) : next.Text } };
                    Match.Result firstMiss = null;
                    var found = -1;
                    for (var i = 0; i < patterns.Count && found < 0; i++)
                    {
                        var outcome = Match.Run(patterns[i], frame, Vars);
                        if (outcome.Ok)
                        {
                            foreach (var pair in outcome.Bound) Vars[pair.Key] = pair.Value;
                            found = i;
                        }
                        else if (firstMiss == null) firstMiss = outcome;
                    }
                    if (found >= 0)
                    {
                        patterns.RemoveAt(found);
                        continue;
                    }
                    if (skipping.Contains(FoyerJson.TypeOf(frame))) continue;
                    var why = firstMiss != null ? "at " + firstMiss.Path + ": " + firstMiss.Reason : "";
                    throw new StepFailure(patterns.Count == 1
                        ? "frame does not match " + why + "\n  expected: " + Match.Show(patterns[0]) + "\n  received: " + Match.Show(frame)
                        : "frame matches none of the " + patterns.Count + " expected frames (first: " + why + ")\n  expected any of: " +
                          string.Join("\n    ", patterns.Select(Match.Show)) + "\n  received: " + Match.Show(frame));
                }
            }

            private static HashSet<string> Skipping(JObject step)
            {
                var list = step["skipping"] as JArray;
                return list == null ? new HashSet<string>() : new HashSet<string>(list.Select(t => (string)t));
            }

            private static string ShowIncoming(Incoming incoming)
            {
                return incoming.Frame != null ? Match.Show(incoming.Frame) : FoyerJson.Write(new JValue(incoming.Text));
            }
        }
    }
}
