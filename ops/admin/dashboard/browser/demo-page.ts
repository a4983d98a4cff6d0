/**
 * The player demo's script, bundled with the SDK for the browser (the global WebSocket, no `ws`): connect
 * with a dev token, create or join a lobby, ready up, and (as host) start a room.
 */
import {
  FoyerClient,
  isFoyerError,
  type LobbyView,
  type SocketLike,
} from "../../../../gateway/client/index.ts";
import { byId, el, enable, inputById } from "./dom.ts";

interface DemoConfig {
  readonly urls: readonly string[];
}

const config = JSON.parse(byId("foyer-config").textContent) as DemoConfig;
let client: FoyerClient | null = null;
let ready = false;

function log(line: string): void {
  byId("log").prepend(el("li", {}, `${new Date().toLocaleTimeString()} ${line}`));
}

function setStatus(text: string): void {
  byId("status").textContent = text;
  document.body.dataset.status = text;
}

/** Runs a request and logs its outcome; a refusal shows its code. */
async function act(name: string, run: (c: FoyerClient) => Promise<unknown>): Promise<void> {
  if (!client) return;
  try {
    const value = await run(client);
    log(`${name}: ok ${JSON.stringify(value)}`);
  } catch (error) {
    log(`${name}: ${isFoyerError(error) ? error.code : String(error)}`);
  }
}

function showLobby(view: LobbyView): void {
  document.body.dataset.lobby = view.code;
  byId("lobby-code").textContent = view.code;
  byId("lobby-host").textContent = view.host ?? "none";
  byId("lobby-epoch").textContent = String(view.epoch);
  byId("members").replaceChildren(
    ...view.members.map((m) =>
      el(
        "li",
        { "data-player": m.player, "data-ready": String(m.ready) },
        `${m.name} (${m.player})${m.player === view.host ? " · host" : ""} · ${m.ready ? "ready" : "not ready"}`,
      ),
    ),
  );
  byId("room").textContent = view.room ? `${view.room.code} (${view.room.mode})` : "none";
  document.body.dataset.room = view.room?.code ?? "";
}

async function devToken(name: string): Promise<string> {
  const res = await fetch(`/demo/token?name=${encodeURIComponent(name)}`);
  const body = (await res.json()) as { token?: string; error?: string };
  if (!res.ok || body.token === undefined) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body.token;
}

async function connect(): Promise<void> {
  const name = inputById("name").value.trim() || "player";
  client?.close();
  const next = new FoyerClient({
    urls: config.urls,
    token: () => devToken(name),
    WebSocket: WebSocket as unknown as new (url: string) => SocketLike,
    json: true,
  });
  client = next;
  next.on("connected", ({ node }) => {
    setStatus(`connected to ${node} as ${next.player ?? "?"}`);
  });
  next.on("disconnected", ({ reason }) => {
    setStatus(`disconnected (${reason}), reconnecting`);
  });
  next.on("lobby", showLobby);
  next.on("room", (room) => {
    log(`room ${room.code}: ${room.mode}`);
  });
  try {
    await next.connect();
    for (const id of ["create", "join", "ready", "start"]) enable(id, true);
  } catch (error) {
    setStatus(`could not connect: ${isFoyerError(error) ? error.code : String(error)}`);
  }
}

byId("connect").addEventListener("click", () => void connect());
byId("create").addEventListener("click", () => void act("create", (c) => c.create()));
byId("join").addEventListener("click", () => {
  const code = inputById("code").value;
  void act("join", (c) => c.join(code));
});
byId("ready").addEventListener("click", () => {
  ready = !ready;
  byId("ready").textContent = ready ? "Not ready" : "Ready";
  void act("ready", (c) => c.ready(ready));
});
byId("start").addEventListener("click", () => {
  const mode = inputById("mode").value;
  void act("start", (c) => c.start(mode));
});
