import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Permissions } from "@nats-io/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NatsLauncher, startNats } from "../../ops/nats/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, lobbyOf, startTestNode } from "../support/node.ts";
import {
  type TestUser,
  accountJwt,
  newAccount,
  newOperator,
  newUser,
  serverOperator,
} from "../support/nats-operator.ts";

/**
 * A nats-server in operator mode (JWT auth, accounts in a MEMORY resolver) and nodes that log in with a
 * `.creds` file (`--nats-creds`), as the least-privilege user docs/operations.md describes.
 */

/** The user permissions block of docs/operations.md's operator-mode section: the one the nodes get. */
function documentedPermissions(): Permissions {
  const doc = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("### Operator-mode NATS (.creds)"));
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error("docs/operations.md: no permissions block in the .creds section");
  return JSON.parse(block) as Permissions;
}

const dir = mkdtempSync(join(tmpdir(), "foyer-nats-creds-"));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
let nats: NatsLauncher | undefined;
let url = "";
let nodeCreds = "";
let nodeUser: TestUser | undefined;
let strangerCreds = "";
let revokedCreds = "";

beforeAll(async () => {
  const system = newAccount();
  const foyer = newAccount();
  // Signed by the same operator, but the servers were never given its JWT.
  const unknown = newAccount();
  const operator = await newOperator(system);
  const permissions = documentedPermissions();
  nodeUser = await newUser(foyer, "foyer-node", permissions);
  const revoked = await newUser(foyer, "revoked-node", permissions);
  // The launcher's readiness probe makes and deletes its own buckets: a user with the whole account.
  const probe = await newUser(foyer, "probe");
  const accounts = {
    [system.getPublicKey()]: await accountJwt(operator, "SYS", system),
    [foyer.getPublicKey()]: await accountJwt(operator, "FOYER", foyer, {
      jetstream: true,
      revoked: [revoked],
    }),
  };
  nats = await startNats({ operator: serverOperator(operator, system, accounts, probe) });
  url = nats.url(0);
  nodeCreds = file("node.creds", nodeUser.creds);
  revokedCreds = file("revoked.creds", revoked.creds);
  strangerCreds = file("stranger.creds", (await newUser(unknown, "stranger")).creds);
}, 60_000);

afterAll(async () => {
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The NKey seed (`SU…`) of a `.creds` file's text. */
const seedOf = (creds: string): string => /SU[A-Z2-7]{56}/.exec(creds)?.[0] ?? "";

/** Every permission the server refused, as it logs them. */
const violations = (): string[] =>
  (nats?.logTail(200) ?? "").split("\n").filter((line) => /violation/i.test(line));

describe("NATS in operator mode, nodes with --nats-creds", () => {
  it("two nodes join with the documented permissions, and a lobby made on one is joined through the other", async () => {
    const nodes: RunningNode[] = [];
    try {
      nodes.push(await startTestNode({ nats: url, natsCreds: nodeCreds, nodeId: "n1" }));
      nodes.push(await startTestNode({ nats: url, natsCreds: nodeCreds, nodeId: "n2" }));
      const [n1, n2] = nodes as [RunningNode, RunningNode];
      const alice = await clientFor(n1, "alice");
      const bob = await clientFor(n2, "bob");
      const { code } = await alice.create();
      const landed = bob.next("connected");
      await bob.join(code);
      expect((await landed).node).toBe("n1");
      await eventually(() => expect(lobbyOf(alice).members.map((m) => m.player)).toEqual(["alice", "bob"]));
      alice.close();
      bob.close();
    } finally {
      for (const node of nodes.reverse()) await node.stop();
    }
    expect(violations()).toEqual([]);
  });

  it("a room's document goes through the object store with the documented permissions", async () => {
    const node = await startTestNode({
      nats: url,
      natsCreds: nodeCreds,
      nodeId: "n3",
      ratePerSecond: "100000",
      rateBurst: "100000",
    });
    try {
      const host = await clientFor(node, "blob-host");
      const guest = await clientFor(node, "blob-guest");
      let received: Uint8Array | undefined;
      guest.on("blob", (blob) => (received = blob.bytes));
      const doc = randomBytes(2 << 20);
      const { room } = await host.createRoom({ seats: 2, mode: "duel", blob: await host.uploadBlob(doc) });
      await guest.joinRoom(room);
      await host.roomReady();
      await guest.roomReady();
      await eventually(() => expect(received).toBeDefined(), 20_000);
      expect(Buffer.from(received ?? new Uint8Array()).equals(doc)).toBe(true);
      host.close();
      guest.close();
    } finally {
      await node.stop();
    }
    expect(violations()).toEqual([]);
  });

  it("a user of an account the servers do not know is refused at start, with the server's reason", async () => {
    await expect(startTestNode({ nats: url, natsCreds: strangerCreds })).rejects.toThrow(
      /NATS refused this connection: .*authorization violation/i,
    );
  });

  it("a user its account's JWT revokes is refused at start, with the server's reason", async () => {
    await expect(startTestNode({ nats: url, natsCreds: revokedCreds })).rejects.toThrow(
      /NATS refused this connection: .*authorization violation/i,
    );
  });

  it("a .creds file that is missing or malformed stops the start, naming the file and what is wrong", async () => {
    await expect(startTestNode({ nats: url, natsCreds: join(dir, "absent.creds") })).rejects.toThrow(
      /--nats-creds .*absent\.creds: cannot be read/,
    );
    const nodeText = nodeUser?.creds ?? "";
    const seedOnly = file("seed-only.creds", `${seedOf(nodeText)}\n`);
    await expect(startTestNode({ nats: url, natsCreds: seedOnly })).rejects.toThrow(
      /--nats-creds .*seed-only\.creds: expected a \.creds file/,
    );
    const other = await newUser(newAccount(), "other");
    const mixed = file("mixed.creds", nodeText.replace(seedOf(nodeText), seedOf(other.creds)));
    await expect(startTestNode({ nats: url, natsCreds: mixed })).rejects.toThrow(
      /--nats-creds .*mixed\.creds: the seed is the key of U[A-Z2-7]+, but the JWT was issued to U/,
    );
    const expired = await newUser(newAccount(), "expired", undefined, Math.floor(Date.now() / 1000) - 60);
    await expect(
      startTestNode({ nats: url, natsCreds: file("expired.creds", expired.creds) }),
    ).rejects.toThrow(/--nats-creds .*expired\.creds: the user JWT expired at \d{4}-/);
  });

  it("--nats-creds with another kind of credentials is refused as ambiguous", async () => {
    await expect(startTestNode({ nats: url, natsCreds: nodeCreds, natsToken: "t" })).rejects.toThrow(
      /set one of --nats-token, --nats-creds, not several/,
    );
  });
});
