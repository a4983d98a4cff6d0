import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FoyerClient, type SocketLike } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { startTestNode, tokenFor } from "../support/node.ts";

let dir = "";
let node: RunningNode | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "foyer-tls-"));
  // A throwaway self-signed certificate for 127.0.0.1, made with the system's openssl.
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  node = await startTestNode({ tlsCert: join(dir, "cert.pem"), tlsKey: join(dir, "key.pem") });
});

afterAll(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("TLS", () => {
  it("serves wss:// with the configured certificate", async () => {
    expect(node?.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/ws$/);
    // The test trusts its own throwaway certificate; real clients check it against their CAs.
    class TrustingSocket extends WebSocket {
      constructor(url: string) {
        super(url, { rejectUnauthorized: false });
      }
    }
    const secure = new FoyerClient({
      urls: [node!.url],
      token: tokenFor("secure"),
      WebSocket: TrustingSocket as unknown as new (url: string) => SocketLike,
    });
    await secure.connect();
    const { code } = await secure.create();
    expect(code).toMatch(/^[A-Z2-9]{6}$/);
    secure.close();
  });
});
