using System;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer.Conformance
{
    /// <summary>
    /// Player tokens for test players: an HS256 JWT signed with one of the node's <c>--token-keys</c>
    /// (<c>kid</c> in the header; <c>sub</c>, <c>name</c>, <c>exp</c> claims), or a dev-mode node's
    /// <c>GET /dev/token</c>. A game gets its tokens from its own backend instead; it never holds a key.
    /// </summary>
    public static class PlayerTokens
    {
        /// <summary>A token for <paramref name="player"/> signed with <c>kid:secret</c>, valid for 10 minutes.</summary>
        public static string Sign(string kidAndSecret, string player, string name)
        {
            var at = kidAndSecret.IndexOf(':');
            if (at < 1 || at == kidAndSecret.Length - 1) throw new ArgumentException("--token-key: expected kid:secret");
            var kid = kidAndSecret.Substring(0, at);
            var secret = kidAndSecret.Substring(at + 1);
            var header = Base64Url(Json(new JObject { { "alg", "HS256" }, { "typ", "JWT" }, { "kid", kid } }));
            var exp = (long)(DateTime.UtcNow - new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc)).TotalSeconds + 600;
            var claims = Base64Url(Json(new JObject { { "sub", player }, { "name", name }, { "exp", exp } }));
            using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
            {
                var signature = hmac.ComputeHash(Encoding.ASCII.GetBytes(header + "." + claims));
                return header + "." + claims + "." + Base64Url(signature);
            }
        }

        /// <summary>A dev token from the node serving <paramref name="wsUrl"/> (dev mode only).</summary>
        public static async Task<string> FromDevNode(string wsUrl, string player, string name)
        {
            var uri = new Uri(wsUrl);
            var http = (uri.Scheme == "wss" ? "https://" : "http://") + uri.Authority;
            using (var client = new HttpClient())
            {
                var body = await client.GetStringAsync(http + "/dev/token?name=" + Uri.EscapeDataString(name) +
                                                       "&player=" + Uri.EscapeDataString(player)).ConfigureAwait(false);
                return (string)FoyerJson.Parse(body)["token"];
            }
        }

        private static byte[] Json(JObject value)
        {
            return Encoding.UTF8.GetBytes(FoyerJson.Write(value));
        }

        private static string Base64Url(byte[] bytes)
        {
            return Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');
        }
    }
}
