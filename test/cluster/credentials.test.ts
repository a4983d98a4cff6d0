import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats } from "../../fleet/index.ts";
import { type NatsLauncher, newNkeyUser, startNats } from "../../ops/nats/index.ts";
import { servesLobbies, startTestNode } from "../support/node.ts";

/**
 * A nats-server that asks for credentials (a user and password, or an NKey), and nodes that give them from
 * their settings (docs/operations.md).
 */

const nodeKey = newNkeyUser();
const seed = nodeKey.seed;
const dir = mkdtempSync(join(tmpdir(), "foyer-nats-auth-"));
const seedFile = join(dir, "node.nk");
let nats: NatsLauncher | undefined;
let url = "";

beforeAll(async () => {
  writeFileSync(seedFile, `${seed}\n`, { mode: 0o600 });
  nats = await startNats({ users: [{ nkeySeed: seed }, { user: "foyer", password: "s3cret-pass" }] });
  url = nats.url(0);
}, 60_000);

afterAll(async () => {
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("NATS credentials", () => {
  it("a connection without them, or with another NKey, is refused", async () => {
    await expect(connectNats({ servers: url, waitOnFirstConnect: false })).rejects.toThrow(/auth/i);
    const stranger = newNkeyUser().seed;
    await expect(
      connectNats({ servers: url, waitOnFirstConnect: false, nkeySeed: stranger }),
    ).rejects.toThrow(/auth/i);
  });

  it("a node with --nats-user and --nats-pass joins and serves lobbies", async () => {
    await servesLobbies({ nats: url, natsUser: "foyer", natsPass: "s3cret-pass" });
  });

  it("a node with --nats-nkey-file joins and serves lobbies", async () => {
    await servesLobbies({ nats: url, natsNkeyFile: seedFile });
  });

  it("an NKey file that is missing or holds no user seed stops the start, naming the file", async () => {
    await expect(startTestNode({ nats: url, natsNkeyFile: join(dir, "absent.nk") })).rejects.toThrow(
      /--nats-nkey-file .*absent\.nk: cannot be read/,
    );
    const wrong = join(dir, "public.nk");
    writeFileSync(wrong, nodeKey.publicKey);
    await expect(startTestNode({ nats: url, natsNkeyFile: wrong })).rejects.toThrow(
      /--nats-nkey-file .*public\.nk: expected one NKey user seed/,
    );
  });

  it("a node whose credentials the server refuses stops its start with the server's reason", async () => {
    await expect(startTestNode({ nats: url, natsUser: "foyer", natsPass: "wrong-pass" })).rejects.toThrow(
      /NATS refused this connection: .*authorization violation/i,
    );
  });

  it("two kinds of credentials at once are refused as ambiguous", async () => {
    await expect(
      startTestNode({ nats: url, natsNkeyFile: seedFile, natsUser: "foyer", natsPass: "s3cret-pass" }),
    ).rejects.toThrow(/set one of --nats-user\/--nats-pass, --nats-nkey-file, not several/);
  });
});
