using System.IO;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Foyer
{
    /// <summary>
    /// JSON text frames as the node writes them: parsed with no date guessing (a string that looks like a
    /// date stays a string) and written compact.
    /// </summary>
    public static class FoyerJson
    {
        /// <summary>Parses one JSON text; throws <see cref="JsonException"/> when it is not JSON.</summary>
        public static JToken Parse(string text)
        {
            using (var reader = new JsonTextReader(new StringReader(text)))
            {
                reader.DateParseHandling = DateParseHandling.None;
                reader.FloatParseHandling = FloatParseHandling.Double;
                var token = JToken.ReadFrom(reader);
                if (reader.Read()) throw new JsonReaderException("more than one JSON value in the text");
                return token;
            }
        }

        /// <summary>A frame as one line of JSON.</summary>
        public static string Write(JToken frame)
        {
            return frame.ToString(Formatting.None);
        }

        /// <summary>The frame's <c>type</c>, or "" when it has none.</summary>
        public static string TypeOf(JToken frame)
        {
            var obj = frame as JObject;
            if (obj == null) return "";
            var type = obj["type"] as JValue;
            return type != null && type.Type == JTokenType.String ? (string)type.Value : "";
        }
    }
}
