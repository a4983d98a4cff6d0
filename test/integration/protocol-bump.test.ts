import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../gateway/index.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { rawSocket, startTestNode, tokenFor, waitFrame } from "../support/node.ts";

/**
 * `--protocol-bump 1` stands in for the next release in a rolling deploy (`foyer rolling-restart
 * --next-protocol`): such a node accepts hellos of the next protocol version and still those of this one.
 */

let node: RunningNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

async function hello(protocol: number): Promise<{ welcome?: number; closed?: number }> {
  const raw = await rawSocket(node!, { hello: false });
  raw.ws.send(encodeFrame({ type: "hello", protocol, token: tokenFor(`p${protocol}`) }, "msgpack"));
  const outcome = await Promise.race([
    waitFrame<{ protocol: number }>(raw.frames, (f) => f.type === "welcome").then((w) => ({
      welcome: w.protocol,
    })),
    raw.closed.then((c) => ({ closed: c.code })),
  ]);
  raw.ws.close();
  return outcome;
}

describe("a node that speaks the next protocol version", () => {
  it("welcomes hellos of this version and the next one", async () => {
    node = await startTestNode({ protocolBump: "1" });
    expect(await hello(PROTOCOL_VERSION)).toEqual({ welcome: PROTOCOL_VERSION });
    expect(await hello(PROTOCOL_VERSION + 1)).toEqual({ welcome: PROTOCOL_VERSION + 1 });
    expect(await hello(PROTOCOL_VERSION + 2)).toEqual({ closed: CloseCodes.PROTOCOL.code });
  });

  it("without the bump, the next version is refused", async () => {
    node = await startTestNode();
    expect(await hello(PROTOCOL_VERSION + 1)).toEqual({ closed: CloseCodes.PROTOCOL.code });
  });
});
