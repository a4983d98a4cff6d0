using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;

namespace Foyer.Tests
{
    /// <summary>A test failed: the message says what was wrong.</summary>
    public sealed class TestFailure : Exception
    {
        public TestFailure(string message) : base(message) { }
    }

    /// <summary>Runs named async tests one after another, a line each, and counts the failures.</summary>
    public sealed class TestHarness
    {
        private readonly List<KeyValuePair<string, Func<Task>>> tests = new List<KeyValuePair<string, Func<Task>>>();
        private readonly List<string> skipped = new List<string>();

        public void Add(string name, Func<Task> test)
        {
            tests.Add(new KeyValuePair<string, Func<Task>>(name, test));
        }

        /// <summary>A test that cannot run here, with why: printed as a skip and counted apart.</summary>
        public void Skip(string name, string why)
        {
            skipped.Add(name + ": " + why);
        }

        /// <summary>Runs every test (each within <paramref name="timeoutMs"/>); the number that failed.</summary>
        public int Run(int timeoutMs)
        {
            var failed = 0;
            foreach (var test in tests)
            {
                var watch = Stopwatch.StartNew();
                string failure = null;
                try
                {
                    var task = Task.Run(test.Value);
                    if (!task.Wait(timeoutMs)) failure = "did not finish within " + timeoutMs + " ms";
                }
                catch (AggregateException error)
                {
                    failure = error.InnerException != null ? error.InnerException.ToString() : error.ToString();
                }
                if (failure == null) Console.WriteLine("ok    " + test.Key + " (" + watch.ElapsedMilliseconds + " ms)");
                else
                {
                    failed++;
                    Console.WriteLine("FAIL  " + test.Key + ": " + failure);
                }
            }
            foreach (var skip in skipped) Console.WriteLine("skip  " + skip);
            Console.WriteLine((tests.Count - failed) + " passed, " + failed + " failed" + (skipped.Count > 0 ? ", " + skipped.Count + " skipped" : ""));
            return failed;
        }

        public static void Check(bool condition, string what)
        {
            if (!condition) throw new TestFailure(what);
        }

        public static void Equal<T>(T expected, T actual, string what)
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
                throw new TestFailure(what + ": expected " + expected + ", got " + actual);
        }

        /// <summary>Waits until <paramref name="condition"/> holds; fails naming <paramref name="what"/> after the timeout.</summary>
        public static async Task Until(Func<bool> condition, string what, int timeoutMs = 5000)
        {
            var watch = Stopwatch.StartNew();
            while (!condition())
            {
                if (watch.ElapsedMilliseconds > timeoutMs) throw new TestFailure("timed out waiting until " + what);
                await Task.Delay(20).ConfigureAwait(false);
            }
        }

        /// <summary>The <see cref="FoyerException"/> code a call is refused with; fails when the call succeeds.</summary>
        public static async Task<string> Refusal(Func<Task> call)
        {
            try
            {
                await call().ConfigureAwait(false);
            }
            catch (FoyerException error)
            {
                return error.Code;
            }
            throw new TestFailure("the call was not refused");
        }
    }
}
