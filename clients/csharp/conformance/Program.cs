using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer.Conformance
{
    /// <summary>
    /// <c>mono foyer-conformance.exe --url ws://host:port/ws [--url …] [--admin http://… per node] (--token-key kid:secret | dev tokens)
    /// [--scenarios DIR] [--scenario NAME …] [--timeout-ms N]</c>: every scenario against a node (or a fleet,
    /// one --url per node), a line each, then <c>N passed, M failed[, K skipped]</c>. Exit 0 when none failed,
    /// 1 when one failed, 2 on bad usage.
    /// </summary>
    public static class Program
    {
        public static int Main(string[] args)
        {
            try
            {
                return Run(args).GetAwaiter().GetResult();
            }
            catch (ArgumentException error)
            {
                Console.WriteLine("foyer-conformance: " + error.Message);
                return 2;
            }
        }

        private static async Task<int> Run(string[] args)
        {
            var urls = new List<string>();
            var admins = new List<string>();
            string tokenKey = null, dir = null;
            var only = new List<string>();
            var timeoutMs = 5000;
            for (var i = 0; i < args.Length; i++)
            {
                var value = i + 1 < args.Length ? args[i + 1] : null;
                switch (args[i])
                {
                    case "--url": urls.Add(WsUrl(value)); i++; break;
                    case "--admin": admins.Add(value); i++; break;
                    case "--token-key": tokenKey = value; i++; break;
                    case "--scenario": only.Add(value); i++; break;
                    case "--scenarios": dir = value; i++; break;
                    case "--timeout-ms":
                        if (!int.TryParse(value, out timeoutMs) || timeoutMs <= 0)
                            throw new ArgumentException("--timeout-ms: expected a whole number of milliseconds above 0");
                        i++;
                        break;
                    default: throw new ArgumentException("unknown option " + args[i]);
                }
            }
            if (urls.Count == 0) throw new ArgumentException("--url: give the node's WebSocket URL (once per node of a fleet)");
            dir = dir ?? FindScenarios();
            var all = Scenarios.Load(dir);
            var scenarios = only.Count == 0 ? all : all.Where(s => only.Contains((string)s["name"])).ToList();
            var unknown = only.FirstOrDefault(name => all.All(s => (string)s["name"] != name));
            if (unknown != null)
                throw new ArgumentException("--scenario: no scenario \"" + unknown + "\"; there are " + string.Join(", ", all.Select(s => (string)s["name"])));
            if (tokenKey != null) PlayerTokens.Sign(tokenKey, "check", "check"); // bad usage before any run
            var options = new RunOptions
            {
                Urls = urls,
                AdminUrls = admins,
                TimeoutMs = timeoutMs,
                TokenFor = (player, name) => tokenKey != null
                    ? Task.FromResult(PlayerTokens.Sign(tokenKey, player, name))
                    : PlayerTokens.FromDevNode(urls[0], player, name),
            };
            int passed = 0, failed = 0, skipped = 0;
            foreach (var scenario in scenarios)
            {
                var result = await Runner.RunScenario(scenario, options).ConfigureAwait(false);
                if (result.Ok)
                {
                    passed++;
                    Console.WriteLine("ok    " + result.Scenario + " [json] (" + result.Steps + " steps)");
                }
                else if (result.Skipped != null)
                {
                    skipped++;
                    Console.WriteLine("skip  " + result.Scenario + " [json]: " + result.Skipped);
                }
                else
                {
                    failed++;
                    Console.WriteLine("FAIL  " + result.Failure);
                }
            }
            Console.WriteLine(passed + " passed, " + failed + " failed" + (skipped > 0 ? ", " + skipped + " skipped" : ""));
            return failed == 0 ? 0 : 1;
        }

        /// <summary>ws://host:port gets the path /ws; anything but ws:// and wss:// is bad usage.</summary>
        private static string WsUrl(string value)
        {
            Uri uri;
            if (value == null || !Uri.TryCreate(value, UriKind.Absolute, out uri)) throw new ArgumentException("--url: not a URL: " + value);
            if (uri.Scheme != "ws" && uri.Scheme != "wss") throw new ArgumentException("--url: expected ws:// or wss://, got " + uri.Scheme + ":");
            return uri.AbsolutePath == "/" ? uri.GetLeftPart(UriPartial.Authority) + "/ws" : uri.ToString();
        }

        /// <summary>conformance/scenarios of the repository this program was built in, found upwards from the working directory.</summary>
        private static string FindScenarios()
        {
            for (var dir = new DirectoryInfo(Directory.GetCurrentDirectory()); dir != null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "conformance", "scenarios");
                if (Directory.Exists(candidate)) return candidate;
            }
            throw new ArgumentException("--scenarios: no conformance/scenarios folder above " + Directory.GetCurrentDirectory());
        }
    }
}
