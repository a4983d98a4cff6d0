using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Foyer.Conformance
{
    /// <summary>The scenario files of conformance/scenarios.</summary>
    public static class Scenarios
    {
        /// <summary>Every scenario of the folder, sorted by name, each checked: its name is its file's, its steps name its clients.</summary>
        public static List<JObject> Load(string dir)
        {
            var scenarios = new List<JObject>();
            foreach (var file in Directory.GetFiles(dir, "*.json").OrderBy(f => Path.GetFileName(f), StringComparer.Ordinal))
            {
                var fileName = Path.GetFileName(file);
                var scenario = FoyerJson.Parse(File.ReadAllText(file)) as JObject;
                if (scenario == null || scenario["steps"] == null || scenario["clients"] == null)
                    throw new ArgumentException(fileName + ": not a scenario");
                if ((string)scenario["name"] + ".json" != fileName) throw new ArgumentException(fileName + ": its name is \"" + scenario["name"] + "\"");
                var clients = (JObject)scenario["clients"];
                var steps = (JArray)scenario["steps"];
                for (var i = 0; i < steps.Count; i++)
                    if (clients[(string)steps[i]["client"]] == null)
                        throw new ArgumentException(fileName + ": step " + (i + 1) + " names the client \"" + steps[i]["client"] + "\", not in clients");
                scenarios.Add(scenario);
            }
            return scenarios;
        }
    }
}
