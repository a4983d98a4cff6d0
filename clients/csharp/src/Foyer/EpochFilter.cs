using System.Collections.Generic;
using Newtonsoft.Json.Linq;

namespace Foyer
{
    /// <summary>
    /// Drops frames from an older owner of a key (docs/protocol.md, "Frames about a key"): once a frame of
    /// epoch E was seen, frames of an epoch below E are ignored, and within one epoch a seq seen before (or
    /// lower) is a duplicate.
    /// </summary>
    public sealed class EpochFilter
    {
        private readonly Dictionary<string, KeyValuePair<long, long>> seen = new Dictionary<string, KeyValuePair<long, long>>();

        /// <summary>True when the frame is news; false when it comes from an older owner or repeats one seen.</summary>
        public bool Admit(string key, long epoch, long seq)
        {
            KeyValuePair<long, long> last;
            if (seen.TryGetValue(key, out last) && (epoch < last.Key || (epoch == last.Key && seq <= last.Value)))
                return false;
            seen[key] = new KeyValuePair<long, long>(epoch, seq);
            return true;
        }

        /// <summary>A frame without <c>key</c>, <c>epoch</c> and <c>seq</c> is not about a key and is always news.</summary>
        public bool Admit(JObject frame)
        {
            var key = frame["key"] as JValue;
            var epoch = frame["epoch"] as JValue;
            var seq = frame["seq"] as JValue;
            if (key == null || key.Type != JTokenType.String || epoch == null || seq == null) return true;
            if (epoch.Type != JTokenType.Integer || seq.Type != JTokenType.Integer) return true;
            return Admit((string)key.Value, (long)epoch, (long)seq);
        }
    }
}
