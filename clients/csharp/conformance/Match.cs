using System;
using System.Collections.Generic;
using System.Linq;
using Newtonsoft.Json.Linq;

namespace Foyer.Conformance
{
    /// <summary>
    /// The matching rules of conformance scenarios (docs/conformance.md), a copy of ops/conformance/match.ts:
    /// objects as subsets (<c>"$absent"</c>: the key is missing), arrays whole and in order, the placeholders
    /// <c>$any $string $number $integer $boolean</c>, any other <c>"$name"</c> a variable (bound: equal; unbound:
    /// binds), <c>"$$text"</c> the literal <c>"$text"</c>, everything else equal (numbers by value).
    /// </summary>
    public static class Match
    {
        private static readonly HashSet<string> Placeholders = new HashSet<string>
        {
            "$any", "$string", "$number", "$integer", "$boolean", "$absent",
        };

        /// <summary>The outcome of a match: the variables it bound, or where and why it failed.</summary>
        public sealed class Result
        {
            public bool Ok;
            public Dictionary<string, JToken> Bound = new Dictionary<string, JToken>();
            public string Path;
            public string Reason;
        }

        /// <summary>The variable a value names (<c>"$code"</c> → <c>code</c>), or null for a literal or a placeholder.</summary>
        public static string VariableOf(JToken value)
        {
            var s = StringOf(value);
            if (s == null || !s.StartsWith("$") || s.StartsWith("$$") || Placeholders.Contains(s)) return null;
            return s.Substring(1);
        }

        /// <summary>Matches a received frame against a pattern, given the variables bound so far. Binds nothing on failure.</summary>
        public static Result Run(JToken pattern, JToken actual, IDictionary<string, JToken> vars)
        {
            var result = new Result();
            var failure = Walk(pattern, actual, "", vars, result.Bound);
            if (failure == null)
            {
                result.Ok = true;
                return result;
            }
            return new Result { Ok = false, Path = failure.Item1, Reason = failure.Item2 };
        }

        private static Tuple<string, string> Walk(JToken pattern, JToken actual, string path,
            IDictionary<string, JToken> vars, Dictionary<string, JToken> bound)
        {
            var at = path == "" ? "frame" : path;
            Func<string, Tuple<string, string>> fail = reason => Tuple.Create(at, reason);
            var p = StringOf(pattern);
            if (p != null && p.StartsWith("$"))
            {
                if (p.StartsWith("$$"))
                    return StringOf(actual) == p.Substring(1) ? null : fail("expected " + Show(new JValue(p.Substring(1))) + ", got " + Show(actual));
                if (actual == null) return fail("expected " + p + ", but the field is missing");
                switch (p)
                {
                    case "$any": return null;
                    case "$string": return actual.Type == JTokenType.String ? null : fail("expected a string, got " + Show(actual));
                    case "$number": return IsNumber(actual) ? null : fail("expected a number, got " + Show(actual));
                    case "$integer": return IsInteger(actual) ? null : fail("expected an integer, got " + Show(actual));
                    case "$boolean": return actual.Type == JTokenType.Boolean ? null : fail("expected a boolean, got " + Show(actual));
                    case "$absent": return fail("expected no field, got " + Show(actual));
                }
                var name = p.Substring(1);
                JToken known;
                if (vars.TryGetValue(name, out known) || bound.TryGetValue(name, out known))
                    return DeepEqual(known, actual) ? null : fail("expected $" + name + " = " + Show(known) + ", got " + Show(actual));
                bound[name] = actual;
                return null;
            }
            var patternArray = pattern as JArray;
            if (patternArray != null)
            {
                var actualArray = actual as JArray;
                if (actualArray == null) return fail("expected an array, got " + Show(actual));
                if (actualArray.Count != patternArray.Count)
                    return fail("expected " + patternArray.Count + " elements, got " + actualArray.Count + ": " + Show(actual));
                for (var i = 0; i < patternArray.Count; i++)
                {
                    var failure = Walk(patternArray[i], actualArray[i], path + "[" + i + "]", vars, bound);
                    if (failure != null) return failure;
                }
                return null;
            }
            var patternObject = pattern as JObject;
            if (patternObject != null)
            {
                var actualObject = actual as JObject;
                if (actualObject == null) return fail("expected an object, got " + Show(actual));
                foreach (var property in patternObject.Properties())
                {
                    var child = path == "" ? property.Name : path + "." + property.Name;
                    var value = actualObject.Property(property.Name);
                    if (StringOf(property.Value) == "$absent")
                    {
                        if (value != null) return Tuple.Create(child, "expected no field, got " + Show(value.Value));
                        continue;
                    }
                    var failure = Walk(property.Value, value == null ? null : value.Value, child, vars, bound);
                    if (failure != null) return failure;
                }
                return null;
            }
            return DeepEqual(pattern, actual) ? null : fail("expected " + Show(pattern) + ", got " + Show(actual));
        }

        /// <summary>A frame to send: every <c>"$name"</c> replaced by its variable's value (<c>"$$x"</c> by <c>"$x"</c>). Throws on an unbound one.</summary>
        public static JToken Substitute(JToken template, IDictionary<string, JToken> vars)
        {
            var s = StringOf(template);
            if (s != null && s.StartsWith("$"))
            {
                if (s.StartsWith("$$")) return new JValue(s.Substring(1));
                var name = VariableOf(template);
                if (name == null) throw new InvalidOperationException(s + " is a placeholder for expectations, not a value to send");
                JToken value;
                if (!vars.TryGetValue(name, out value)) throw new InvalidOperationException("variable $" + name + " is not bound yet");
                return value.DeepClone();
            }
            var array = template as JArray;
            if (array != null) return new JArray(array.Select(v => Substitute(v, vars)));
            var obj = template as JObject;
            if (obj != null)
            {
                var copy = new JObject();
                foreach (var property in obj.Properties()) copy[property.Name] = Substitute(property.Value, vars);
                return copy;
            }
            return template == null ? null : template.DeepClone();
        }

        private static string StringOf(JToken value)
        {
            return value != null && value.Type == JTokenType.String ? (string)((JValue)value).Value : null;
        }

        private static bool IsNumber(JToken value)
        {
            return value.Type == JTokenType.Integer || value.Type == JTokenType.Float;
        }

        private static bool IsInteger(JToken value)
        {
            if (value.Type == JTokenType.Integer) return true;
            if (value.Type != JTokenType.Float) return false;
            var d = (double)value;
            return !double.IsInfinity(d) && Math.Floor(d) == d;
        }

        /// <summary>Equality of JSON values; numbers by value (an integer and a float that are equal are equal).</summary>
        public static bool DeepEqual(JToken a, JToken b)
        {
            if (a == null || b == null) return a == null && b == null;
            if (IsNumber(a) && IsNumber(b))
            {
                if (a.Type == JTokenType.Integer && b.Type == JTokenType.Integer) return ((JValue)a).Value.Equals(((JValue)b).Value) || (double)a == (double)b;
                return (double)a == (double)b;
            }
            var aa = a as JArray;
            var ba = b as JArray;
            if (aa != null || ba != null)
            {
                if (aa == null || ba == null || aa.Count != ba.Count) return false;
                for (var i = 0; i < aa.Count; i++) if (!DeepEqual(aa[i], ba[i])) return false;
                return true;
            }
            var ao = a as JObject;
            var bo = b as JObject;
            if (ao != null || bo != null)
            {
                if (ao == null || bo == null || ao.Count != bo.Count) return false;
                foreach (var property in ao.Properties())
                {
                    var other = bo.Property(property.Name);
                    if (other == null || !DeepEqual(property.Value, other.Value)) return false;
                }
                return true;
            }
            if (a.Type != b.Type) return false;
            return JToken.DeepEquals(a, b);
        }

        /// <summary>A value for a failure message, cut to a readable length.</summary>
        public static string Show(JToken value)
        {
            if (value == null) return "nothing";
            var text = FoyerJson.Write(value);
            return text.Length > 400 ? text.Substring(0, 400) + "…" : text;
        }
    }
}
