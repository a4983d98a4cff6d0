using System;
using System.IO;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Foyer
{
    /// <summary>One message or the close, as <see cref="FoyerSocket.ReceiveAsync"/> returns them.</summary>
    public sealed class Incoming
    {
        /// <summary>The decoded frame, or null when the message was not JSON (then <see cref="Text"/> holds it) or this is the close.</summary>
        public JToken Frame;
        /// <summary>The message's text (a binary message is decoded as UTF-8).</summary>
        public string Text;
        /// <summary>The message was binary (the node answers in binary only to a msgpack hello).</summary>
        public bool Binary;
        /// <summary>Set when this is the close: the close code (1006 when the socket dropped without one).</summary>
        public int? CloseCode;
        public string CloseReason;

        public bool IsClose { get { return CloseCode.HasValue; } }
    }

    /// <summary>
    /// A WebSocket to a node speaking JSON text frames, on <see cref="ClientWebSocket"/> (.NET Standard 2.0).
    /// Sends are serialised (a ClientWebSocket takes one send at a time); one reader calls
    /// <see cref="ReceiveAsync"/> in a loop until it returns the close.
    /// </summary>
    public sealed class FoyerSocket : IDisposable
    {
        private readonly ClientWebSocket ws;
        private readonly SemaphoreSlim sending = new SemaphoreSlim(1, 1);
        private readonly CancellationTokenSource life = new CancellationTokenSource();
        private int closeSeen;

        public Uri Url { get; private set; }

        private FoyerSocket(ClientWebSocket ws, Uri url)
        {
            this.ws = ws;
            Url = url;
        }

        /// <summary>Opens a socket to <paramref name="url"/> (ws:// or wss://); fails after <paramref name="timeoutMs"/>.</summary>
        public static async Task<FoyerSocket> OpenAsync(string url, int timeoutMs = 10000)
        {
            var uri = new Uri(url);
            var ws = new ClientWebSocket();
            using (var cts = new CancellationTokenSource(timeoutMs))
            {
                try
                {
                    await ws.ConnectAsync(uri, cts.Token).ConfigureAwait(false);
                }
                catch
                {
                    ws.Dispose();
                    throw;
                }
            }
            return new FoyerSocket(ws, uri);
        }

        /// <summary>The socket can still send.</summary>
        public bool IsOpen { get { return ws.State == WebSocketState.Open; } }

        /// <summary>Sends a frame as a JSON text message.</summary>
        public Task SendAsync(JToken frame)
        {
            return SendTextAsync(FoyerJson.Write(frame));
        }

        /// <summary>Sends a text message as it is (malformed input, for tests).</summary>
        public async Task SendTextAsync(string text)
        {
            var bytes = Encoding.UTF8.GetBytes(text);
            await sending.WaitAsync().ConfigureAwait(false);
            try
            {
                await ws.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, life.Token)
                    .ConfigureAwait(false);
            }
            finally
            {
                sending.Release();
            }
        }

        /// <summary>
        /// The next message, or the close (once; later calls return the close again). A socket that dropped
        /// without a close frame reports 1006.
        /// </summary>
        public async Task<Incoming> ReceiveAsync()
        {
            var buffer = new byte[16384];
            using (var message = new MemoryStream())
            {
                for (;;)
                {
                    WebSocketReceiveResult result;
                    try
                    {
                        result = await ws.ReceiveAsync(new ArraySegment<byte>(buffer), life.Token).ConfigureAwait(false);
                    }
                    catch (Exception)
                    {
                        return Closed(ws.CloseStatus.HasValue ? (int)ws.CloseStatus.Value : 1006, ws.CloseStatusDescription);
                    }
                    if (result.MessageType == WebSocketMessageType.Close)
                    {
                        var code = result.CloseStatus.HasValue ? (int)result.CloseStatus.Value : 1005;
                        if (Interlocked.Exchange(ref closeSeen, 1) == 0) AnswerClose(code);
                        return Closed(code, result.CloseStatusDescription);
                    }
                    message.Write(buffer, 0, result.Count);
                    if (!result.EndOfMessage) continue;
                    var text = Encoding.UTF8.GetString(message.ToArray());
                    var incoming = new Incoming { Text = text, Binary = result.MessageType == WebSocketMessageType.Binary };
                    try
                    {
                        incoming.Frame = FoyerJson.Parse(text);
                    }
                    catch (Exception)
                    {
                        incoming.Frame = null;
                    }
                    return incoming;
                }
            }
        }

        private static Incoming Closed(int code, string reason)
        {
            return new Incoming { CloseCode = code, CloseReason = reason ?? "" };
        }

        /// <summary>
        /// After the node's close: answers it when the node started the close, then drops the TCP connection
        /// (Mono's ClientWebSocket keeps it open after the handshake, and the node reports a member gone only
        /// once the connection ends).
        /// </summary>
        private void AnswerClose(int code)
        {
            if (ws.State != WebSocketState.CloseReceived)
            {
                Abort();
                return;
            }
            var status = code >= 1000 && code != 1005 && code != 1006 ? (WebSocketCloseStatus)code : WebSocketCloseStatus.NormalClosure;
            Task answer;
            sending.Wait();
            try
            {
                answer = ws.CloseOutputAsync(status, "", CancellationToken.None);
            }
            catch (Exception)
            {
                answer = Task.FromResult(0);
            }
            finally
            {
                sending.Release();
            }
            answer.ContinueWith(t =>
            {
                var _ = t.Exception;
                Abort();
            });
        }

        /// <summary>Starts the close handshake with <paramref name="code"/>; the reader then receives the node's close.</summary>
        public async Task CloseAsync(int code = 1000, string reason = "")
        {
            if (ws.State != WebSocketState.Open) return;
            await sending.WaitAsync().ConfigureAwait(false);
            try
            {
                if (ws.State == WebSocketState.Open)
                    await ws.CloseOutputAsync((WebSocketCloseStatus)code, reason, CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception)
            {
                Abort();
            }
            finally
            {
                sending.Release();
            }
        }

        /// <summary>Drops the socket at once, with no close frame (the node sees a dropped connection).</summary>
        public void Abort()
        {
            try
            {
                life.Cancel();
                ws.Abort();
            }
            catch (Exception)
            {
                // already gone
            }
        }

        public void Dispose()
        {
            Abort();
            ws.Dispose();
        }
    }
}
