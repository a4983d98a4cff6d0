import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCreds, natsAuthOf } from "../../ops/nats/index.ts";
import { accountJwt, newAccount, newOperator, newUser } from "../support/nats-operator.ts";

/** A `.creds` file is checked before the first connect (ops/nats/nats-creds.ts). */

const now = Date.now();
const seedOf = (creds: string): string => /SU[A-Z2-7]{56}/.exec(creds)?.[0] ?? "";
const dir = mkdtempSync(join(tmpdir(), "foyer-creds-unit-"));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("checkCreds", () => {
  it("names the user and account of a good file", async () => {
    const account = newAccount();
    const user = await newUser(account, "node");
    expect(checkCreds(user.creds, now)).toEqual({
      user: user.publicKey,
      account: account.getPublicKey(),
    });
  });

  it("says what is wrong with a file that will not log in", async () => {
    const user = await newUser(newAccount(), "node");
    const other = await newUser(newAccount(), "other");
    expect(checkCreds(seedOf(user.creds), now)).toMatch(/^expected a \.creds file/);
    expect(checkCreds(user.creds.replace(/eyJ[\w.-]+/, "not-a-jwt"), now)).toBe(
      "the first block is not a JWT",
    );
    expect(checkCreds(user.creds.replace(seedOf(user.creds), seedOf(other.creds)), now)).toMatch(
      /^the seed is the key of U\w+, but the JWT was issued to U\w+$/,
    );
    // A changed character in the key's middle (the last one holds padding bits the checksum skips).
    const seed = seedOf(user.creds);
    const damaged = `${seed.slice(0, 20)}${seed[20] === "A" ? "B" : "A"}${seed.slice(21)}`;
    expect(checkCreds(user.creds.replace(seed, damaged), now)).toMatch(/damaged/);
    const expired = await newUser(newAccount(), "old", undefined, Math.floor(now / 1000) - 1);
    expect(checkCreds(expired.creds, now)).toMatch(/^the user JWT expired at /);
  });

  it("refuses an account's JWT in place of a user's", async () => {
    const system = newAccount();
    const account = newAccount();
    const jwt = await accountJwt(await newOperator(system), "FOYER", account);
    const user = await newUser(account, "node");
    expect(checkCreds(user.creds.replace(/eyJ[\w.-]+/, jwt), now)).toBe("the JWT is not a NATS user JWT");
  });
});

describe("natsAuthOf with --nats-creds", () => {
  it("reads a file with Windows line ends as nats.js needs it, LF only", async () => {
    const user = await newUser(newAccount(), "node");
    const path = join(dir, "crlf.creds");
    writeFileSync(path, user.creds.replace(/\n/g, "\r\n"));
    expect(natsAuthOf({ natsCreds: path })).toEqual({ creds: user.creds });
  });
});
