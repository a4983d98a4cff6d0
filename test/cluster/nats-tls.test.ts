import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { connectNats } from "../../fleet/index.ts";
import { type NatsLauncher, startNats } from "../../ops/nats/index.ts";
import { servesLobbies, startTestNode } from "../support/node.ts";

/**
 * TLS between the nodes and NATS: a nats-server that takes only TLS clients (and one that also verifies
 * their certificates), and nodes that connect with the CA and client certificate their settings name.
 * The certificates are test fixtures (test/fixtures/nats-tls/README.md).
 */

const fixtures = fileURLToPath(new URL("../fixtures/nats-tls/", import.meta.url));
const file = (name: string): string => join(fixtures, name);
const ca = file("ca.pem");
const serverTls = { certFile: file("server.pem"), keyFile: file("server-key.pem") };
const clientTls = { ca: readFileSync(ca, "utf8") };
const mutualClientTls = {
  ...clientTls,
  cert: readFileSync(file("client.pem"), "utf8"),
  key: readFileSync(file("client-key.pem"), "utf8"),
};
const dir = mkdtempSync(join(tmpdir(), "foyer-nats-tls-"));
const launched: NatsLauncher[] = [];

afterAll(async () => {
  await Promise.all(launched.map((n) => n.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function tlsServer(verify: boolean): Promise<string> {
  const nats = await startNats({
    tls: {
      server: { ...serverTls, ...(verify ? { caFile: ca, verify: true } : {}) },
      client: verify ? mutualClientTls : clientTls,
    },
  });
  launched.push(nats);
  return nats.url(0);
}

describe("TLS to NATS", () => {
  it("a node with --nats-tls-ca joins a TLS-only server and serves lobbies; a client that does not trust its CA is refused", async () => {
    const url = await tlsServer(false);
    await servesLobbies({ nats: url, natsTlsCa: ca });
    // Node's own CA list does not hold the test CA: the server's certificate is not trusted.
    await expect(connectNats({ servers: url, waitOnFirstConnect: false })).rejects.toThrow(
      /certificate|tls/i,
    );
  });

  it("a server that verifies clients takes a node with --nats-tls-cert and --nats-tls-key, and refuses one without", async () => {
    const url = await tlsServer(true);
    await servesLobbies({
      nats: url,
      natsTlsCa: ca,
      natsTlsCert: file("client.pem"),
      natsTlsKey: file("client-key.pem"),
    });
    // Under TLS 1.3 the server drops a client without a certificate after the handshake; nats.js then
    // waits out its connect timeout (shortened here) and fails with TIMEOUT.
    const refused = await connectNats({
      servers: url,
      waitOnFirstConnect: false,
      tls: clientTls,
      natsOptions: { timeout: 2_000 },
    }).then(
      () => "connected",
      (error: unknown) => String(error),
    );
    expect(refused).toMatch(/TIMEOUT|tls|certificate/i);
  });

  it("a node the server refuses stops its start with the reason: a CA it does not trust, a server without TLS", async () => {
    const url = await tlsServer(false);
    await expect(startTestNode({ nats: url })).rejects.toThrow(
      /NATS refused this connection: .*(certificate|UNABLE_TO_VERIFY)/i,
    );
    const plain = await startNats({});
    launched.push(plain);
    await expect(startTestNode({ nats: plain.url(0), natsTlsCa: ca })).rejects.toThrow(
      /NATS refused this connection: the server offers no TLS/,
    );
  });

  it("a TLS setting that is half given or names a file without PEM stops the start, naming it", async () => {
    const url = await tlsServer(false);
    await expect(
      startTestNode({ nats: url, natsTlsCa: ca, natsTlsCert: file("client.pem") }),
    ).rejects.toThrow(/set --nats-tls-cert and --nats-tls-key together/);
    const notPem = join(dir, "ca.txt");
    writeFileSync(notPem, "not a certificate\n");
    await expect(startTestNode({ nats: url, natsTlsCa: notPem })).rejects.toThrow(
      /--nats-tls-ca .*ca\.txt: expected a PEM certificate/,
    );
    await expect(
      startTestNode({
        nats: url,
        natsTlsCa: ca,
        natsTlsCert: file("client.pem"),
        natsTlsKey: file("client.pem"),
      }),
    ).rejects.toThrow(/--nats-tls-key .*client\.pem: expected a PEM private key/);
  });
});
