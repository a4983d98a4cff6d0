import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats } from "../../fleet/index.ts";
import { ensureNatsServer, freePorts, waitListening } from "../../ops/nats/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, startTestNode } from "../support/node.ts";

/** A nats-server that asks for a user and password, and a node that gives them from its settings. */

let server: ChildProcess | undefined;
let url = "";
// Its own JetStream directory: without -sd the server would reuse one in /tmp across runs.
const storeDir = mkdtempSync(join(tmpdir(), "foyer-nats-auth-"));

beforeAll(async () => {
  const bin = await ensureNatsServer();
  const [port] = await freePorts(1);
  url = `nats://127.0.0.1:${port}`;
  server = spawn(
    bin,
    [
      "-a",
      "127.0.0.1",
      "-p",
      String(port),
      "-js",
      "-sd",
      storeDir,
      "--user",
      "foyer",
      "--pass",
      "s3cret-pass",
    ],
    {
      stdio: "ignore",
    },
  );
  await waitListening("127.0.0.1", port ?? 0, Date.now() + 10_000, () => undefined);
}, 60_000);

afterAll(() => {
  server?.kill("SIGKILL");
  rmSync(storeDir, { recursive: true, force: true });
});

describe("NATS credentials", () => {
  it("a connection without them is refused", async () => {
    await expect(connectNats({ servers: url, waitOnFirstConnect: false })).rejects.toThrow(/auth/i);
  });

  it("a node with --nats-user and --nats-pass joins and serves lobbies", async () => {
    const node: RunningNode = await startTestNode({ nats: url, natsUser: "foyer", natsPass: "s3cret-pass" });
    try {
      const client = await clientFor(node, "alice");
      await expect(client.create()).resolves.toMatchObject({ code: expect.any(String) as string });
      client.close();
    } finally {
      await node.stop();
    }
  });
});
