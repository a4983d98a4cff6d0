import { Packr } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { FoyerClient, SearchFields, SocketLike } from "../../gateway/client/index.ts";
import { FoyerClient as Client } from "../../gateway/client/foyer-client.ts";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import { PROTOCOL_VERSION } from "../../gateway/protocol/server-frames.ts";
import { substitute, variableOf } from "../../ops/conformance/match.ts";
import { conformanceLobbyTypesFile, loadScenarios } from "../../ops/conformance/scenarios.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, startTestNode, tokenFor } from "../support/node.ts";

/**
 * "The TypeScript SDK passes": every well-formed frame a scenario sends is one the SDK sends for the
 * matching call — the same fields and values, the request id and ack aside (the SDK numbers its own
 * requests and acks what it settled). The SDK's sockets are recorded; its calls go to a real node
 * (refusals are fine: the frame is what is checked).
 * Frames a scenario sends on purpose to be refused (unknown types, wrong fields) are not SDK calls.
 */
const unpack = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
const sent: Record<string, unknown>[] = [];
const sockets: WebSocket[] = [];

/** A `ws` socket that records every frame the SDK sends. */
class RecordingSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
  }
  override send(data: Uint8Array | string): void {
    sent.push((typeof data === "string" ? JSON.parse(data) : unpack.unpack(data)) as Record<string, unknown>);
    super.send(data);
  }
}

/** The SDK call that sends a frame of this type with these fields. */
const calls: Record<string, (c: FoyerClient, f: Record<string, unknown>) => Promise<unknown>> = {
  create: (c, f) => {
    const { type: _t, id: _i, ack: _a, ...opts } = f;
    return c.create(opts);
  },
  join: (c, f) => c.join(f.code as string),
  leave: (c) => c.leave(),
  ready: (c, f) => c.ready(f.ready as boolean),
  profile: (c, f) => c.profile(f.name as string),
  makeHost: (c, f) => c.makeHost(f.player as string),
  start: (c, f) => c.start(f.mode as string),
  return: (c) => c.return(),
  setLobbyData: (c, f) =>
    c.setLobbyData(f.set as never, f.ifVersion === undefined ? {} : { ifVersion: f.ifVersion as number }),
  lobbyChat: (c, f) => c.sendLobbyChat(f.text as string, f.channel as "all" | "team"),
  kick: (c, f) => c.kick(f.player as string, { ban: f.ban as boolean, reason: f.reason as string }),
  joinActivity: (c, f) =>
    c.joinActivity(f.activity as string, f.vehicle ? { vehicle: f.vehicle as string } : {}),
  activityReady: (c, f) => c.activityReady(f.ready as boolean),
  createRoom: (c, f) => {
    const { type: _t, id: _i, ack: _a, ...opts } = f;
    return c.createRoom(opts as Parameters<FoyerClient["createRoom"]>[0]);
  },
  joinRoom: (c, f) =>
    c.joinRoom(f.code as string, f.side as number | undefined, f.token as string | undefined),
  roomReady: (c, f) => c.roomReady(f.ready as boolean),
  command: (c, f) => c.command(f.data as string),
  resumeRoom: (c) => c.resumeRoom(),
  findLobby: (c, f) => {
    const { type: _t, id: _i, ack: _a, lobbyType, ...fields } = f;
    return c.findLobby(lobbyType as string, fields as unknown as SearchFields);
  },
  queryLobbies: (c, f) => {
    const { type: _t, id: _i, ack: _a, ...opts } = f;
    return c.queryLobbies(opts);
  },
  quickJoin: (c, f) => {
    const { type: _t, id: _i, ack: _a, ...opts } = f;
    return c.quickJoin(opts);
  },
  acceptMatch: (c, f) => c.acceptMatch(f.matchId as string),
  declineMatch: (c, f) => c.declineMatch(f.matchId as string),
};

/**
 * Frames the SDK sends by itself, not as a call: `roomTurns` when it sees a gap in the turns (its frame,
 * `{ type, id, after }`, is checked in test/unit/turn-log.test.ts), `getRoomBlob` at a room's start, and
 * the three frames of one `uploadBlob` (checked below against blob-upload-stream).
 */
const sentBySdkItself = new Set(["roomTurns", "getRoomBlob", "beginBlob", "blobChunk", "finishBlob"]);

let node: RunningNode;
let sdk: FoyerClient;
beforeAll(async () => {
  node = await startTestNode({ lobbyTypesFile: conformanceLobbyTypesFile });
  sdk = new Client({
    urls: [node.url],
    token: tokenFor("sdk-player", "Sdk"),
    reconnectMinMs: 20,
    callTimeoutMs: 2_000,
    WebSocket: RecordingSocket as unknown as new (url: string) => SocketLike,
  });
  await sdk.connect();
});
afterAll(async () => {
  sdk.close();
  await node.stop();
});

/** A scenario's send frame with its variables filled by sample values (captures have none at this point). */
function sample(frame: Record<string, unknown>, clients: string[]): Record<string, unknown> {
  const vars = new Map<string, unknown>(clients.map((c) => [c, `p-${c}`]));
  const fill = (v: unknown): unknown => {
    const name = variableOf(v);
    if (name !== undefined && !vars.has(name))
      vars.set(name, name === "token" ? "t" : `SAMPLE${name.toUpperCase()}`);
    if (Array.isArray(v)) v.forEach(fill);
    else if (typeof v === "object" && v !== null) Object.values(v).forEach(fill);
    return v;
  };
  fill(frame);
  return substitute(frame, vars) as Record<string, unknown>;
}

const covered = new Set<string>();
const withoutId = ({ id: _id, ack: _ack, ...rest }: Record<string, unknown>) => rest;

describe("the TypeScript SDK sends the scenarios' frames", () => {
  const scenarios = loadScenarios();
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      for (const step of scenario.steps) {
        if (!("send" in step)) continue;
        const frame = sample(step.send, Object.keys(scenario.clients));
        if (!clientFrameSchema.safeParse(frame).success) continue; // sent to be refused: no SDK call
        const type = frame.type as string;
        if (type === "hello" && frame.protocol !== PROTOCOL_VERSION) continue; // a version the SDK never speaks
        if (type === "hello") {
          // The SDK says hello by itself, in the scenario's shape: the same protocol, a token.
          const hello = sent.find((f) => f.type === "hello");
          expect(hello).toMatchObject({ type: "hello", protocol: frame.protocol, token: expect.any(String) });
          expect(Object.keys(hello ?? {}).sort()).toEqual(
            Object.keys(frame)
              .filter((k) => k !== "resume")
              .sort(),
          );
          covered.add(type);
          continue;
        }
        if (type === "ping") continue; // the SDK pings inside pingData(); a keep-alive is not a call
        if (sentBySdkItself.has(type)) continue;
        const call = calls[type];
        if (!call) throw new Error(`${scenario.name}: no SDK call maps to a "${type}" frame; add one here`);
        const before = sent.length;
        await call(sdk, frame).catch(() => undefined);
        const frames = sent.slice(before).filter((f) => f.type === type);
        expect(frames.length, `the SDK sent no ${type} frame`).toBeGreaterThan(0);
        expect(frames[0]?.id).toEqual(expect.any(Number));
        expect(withoutId(frames[0] ?? {})).toEqual(withoutId(frame));
        covered.add(type);
      }
    });
  }

  it("covers every SDK call the scenarios map to, and the hello", () => {
    expect([...covered].sort()).toEqual([...Object.keys(calls), "hello"].sort());
  });

  it("uploadBlob sends blob-upload-stream's upload: beginBlob, the chunks in order, finishBlob", async () => {
    const scenario = loadScenarios().find((sc) => sc.name === "blob-upload-stream");
    const frames = (scenario?.steps ?? []).flatMap((step) => ("send" in step ? [step.send] : []));
    const begin = frames.find((f) => f.type === "beginBlob");
    // The document is the chunks of the upload that succeeds, each index once.
    const chunks = new Map<unknown, string>();
    for (const f of frames)
      if (f.type === "blobChunk" && f.blob === "$blob") chunks.set(f.index, f.data as string);
    const doc = Buffer.concat([0, 1].map((i) => Buffer.from(chunks.get(i) ?? "", "base64")));
    const before = sent.length;
    const blob = await sdk.uploadBlob(new Uint8Array(doc));
    const upload = sent.slice(before);
    expect(upload.map((f) => f.type)).toEqual(["beginBlob", "blobChunk", "finishBlob"]);
    expect(withoutId(upload[0] ?? {})).toEqual(withoutId(begin ?? {}));
    expect(withoutId(upload[1] ?? {})).toMatchObject({ type: "blobChunk", blob, index: 0 });
    expect(Buffer.from(upload[1]?.data as Uint8Array)).toEqual(doc);
    expect(withoutId(upload[2] ?? {})).toEqual({ type: "finishBlob", blob });
  });

  it("after a drop the SDK says hello with the resume token its welcome gave (resume-exactly-once)", async () => {
    const hellos = () => sent.filter((f) => f.type === "hello");
    const count = hellos().length;
    const first = sockets.at(-1);
    first?.terminate();
    await eventually(() => expect(hellos().length).toBeGreaterThan(count), 10_000);
    expect(hellos().at(-1)).toMatchObject({ type: "hello", protocol: 1, resume: expect.any(String) });
    // `lobby` names the lobby the client was in, when it is in one and its welcome said `lobbyHint`.
    const keys = Object.keys(hellos().at(-1) ?? {}).filter((key) => key !== "lobby");
    expect(keys.sort()).toEqual(["protocol", "resume", "token", "type"]);
  });
});
