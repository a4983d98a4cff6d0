import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportSPKI, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  PlayerTokenVerifier,
  RemoteKeySet,
  playerTokenVerifierOf,
  signPlayerToken,
  type PlayerTokenPolicy,
} from "../../gateway/auth/index.ts";
import {
  providerKey,
  providerToken,
  startJwksServer,
  type JwksServer,
  type ProviderKey,
} from "../support/jwks-server.ts";

const issuer = "https://auth.example.com/";
const audience = "my-game";
const hsKey = { id: "k1", secret: "test-secret-0123456789abcdef" };

let rsa: ProviderKey;
let ec: ProviderKey;
let ed: ProviderKey;
let rotated: ProviderKey;
let server: JwksServer | undefined;

beforeAll(async () => {
  [rsa, ec, ed, rotated] = await Promise.all([
    providerKey("RS256", "rsa-1"),
    providerKey("ES256", "ec-1"),
    providerKey("EdDSA", "ed-1"),
    providerKey("RS256", "rsa-2"),
  ]);
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A clock the key set's cooldown and age are counted on; tests move it. */
function testClock() {
  const clock = { ms: 1_000_000, now: () => clock.ms };
  return clock;
}

/** A verifier on a JWKS server serving `keys`, with a 30 s cooldown on `clock`. */
async function providerVerifier(
  keys: ProviderKey[],
  policy: Partial<PlayerTokenPolicy> = {},
  clock = testClock(),
  timeoutMs = 2_000,
) {
  server = await startJwksServer(keys.map((k) => k.jwk));
  const remote = new RemoteKeySet({
    url: new URL(server.url),
    cooldownMs: 30_000,
    maxAgeMs: 600_000,
    timeoutMs,
    now: clock.now,
  });
  const verifier = new PlayerTokenVerifier({
    keys: [hsKey],
    keySet: remote.getKey,
    issuer: [issuer],
    audience: [audience],
    ...policy,
  });
  return { verifier, server, clock };
}

const claims = (extra: Record<string, unknown> = {}) => ({
  sub: "p1",
  name: "Ann",
  iss: issuer,
  aud: audience,
  ...extra,
});

describe("player tokens from a provider's JWKS", () => {
  it("accepts RS256, ES256 and EdDSA tokens from the provider's keys, fetching its key set once", async () => {
    const { verifier, server } = await providerVerifier([rsa, ec, ed]);
    for (const key of [rsa, ec, ed]) {
      const check = await verifier.verify(await providerToken(key, claims()), Date.now());
      expect(check).toMatchObject({ ok: true, claims: { sub: "p1", name: "Ann" } });
    }
    expect(server.hits()).toBe(1);
  });

  it("still accepts the node's own HS256 tokens next to the provider's", async () => {
    const { verifier } = await providerVerifier([rsa], { issuer: [], audience: [] });
    const exp = Math.floor(Date.now() / 1000) + 60;
    expect(await verifier.verify(signPlayerToken({ sub: "p2", name: "Bo", exp }, hsKey), Date.now())).toEqual(
      {
        ok: true,
        claims: { sub: "p2", name: "Bo", exp },
      },
    );
  });

  it("a rotated key (a new kid in the key set) is fetched once, then served from the cache", async () => {
    const { verifier, server, clock } = await providerVerifier([rsa]);
    expect((await verifier.verify(await providerToken(rsa, claims()), Date.now())).ok).toBe(true);
    server.keys = [rsa.jwk, rotated.jwk];
    clock.ms += 31_000;
    for (let i = 0; i < 5; i++) {
      expect((await verifier.verify(await providerToken(rotated, claims()), Date.now())).ok).toBe(true);
    }
    expect(server.hits()).toBe(2);
  });

  it("a flood of unknown kids is refused without hammering the provider: one fetch per cooldown", async () => {
    const { verifier, server, clock } = await providerVerifier([rsa]);
    const strangers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => providerKey("RS256", `stranger-${i}`)),
    );
    const flood = async (n: number) => {
      const tokens = await Promise.all(
        Array.from({ length: n }, (_, i) => providerToken(strangers[i % strangers.length]!, claims())),
      );
      // Half at once, half one after another.
      const together = await Promise.all(tokens.slice(0, n / 2).map((t) => verifier.verify(t, Date.now())));
      const after = [];
      for (const t of tokens.slice(n / 2)) after.push(await verifier.verify(t, Date.now()));
      return [...together, ...after];
    };
    const first = await flood(200);
    expect(new Set(first.map((c) => (c.ok ? "ok" : c.why)))).toEqual(new Set(["unknown key"]));
    // The first token fetched the keys; its unknown kid could not fetch again inside the cooldown.
    expect(server.hits()).toBe(1);
    clock.ms += 31_000;
    await flood(200);
    expect(server.hits()).toBe(2);
    // A good token is still served from the keys in hand.
    expect((await verifier.verify(await providerToken(rsa, claims()), Date.now())).ok).toBe(true);
    expect(server.hits()).toBe(2);
  });

  it("a provider that fails or hangs gets one fetch per cooldown; its tokens are refused as keys unavailable", async () => {
    const { verifier, server, clock } = await providerVerifier([rsa], {}, testClock(), 300);
    server.answer = 500;
    const token = await providerToken(rsa, claims());
    for (let i = 0; i < 20; i++)
      expect(await verifier.verify(token, Date.now())).toEqual({ ok: false, why: "keys unavailable" });
    expect(server.hits()).toBe(1);
    server.answer = "hang";
    clock.ms += 31_000;
    const started = Date.now();
    const hung = await Promise.all(Array.from({ length: 20 }, () => verifier.verify(token, Date.now())));
    expect(hung.every((c) => !c.ok && c.why === "keys unavailable")).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.hits()).toBe(2);
    server.answer = 200;
    clock.ms += 31_000;
    expect((await verifier.verify(token, Date.now())).ok).toBe(true);
    expect(server.hits()).toBe(3);
  });

  it("keeps the last good keys when a refresh fails", async () => {
    const { verifier, server, clock } = await providerVerifier([rsa]);
    const token = await providerToken(rsa, claims());
    expect((await verifier.verify(token, Date.now())).ok).toBe(true);
    server.answer = 500;
    clock.ms += 700_000;
    expect((await verifier.verify(token, Date.now())).ok).toBe(true);
    expect(server.hits()).toBe(2);
  });
});

describe("player tokens refused, with the reason", () => {
  it("alg none is refused, whatever keys the node has", async () => {
    const { verifier } = await providerVerifier([rsa]);
    const head = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT", kid: "rsa-1" })).toString("base64url");
    const body = Buffer.from(
      JSON.stringify({ ...claims(), exp: Math.floor(Date.now() / 1000) + 60 }),
    ).toString("base64url");
    expect(await verifier.verify(`${head}.${body}.`, Date.now())).toEqual({
      ok: false,
      why: "algorithm not accepted",
    });
  });

  it("an HS256 token signed with the provider's public key as its secret finds no key", async () => {
    const pem = await exportSPKI(rsa.publicKey);
    const forge = (kid: string) =>
      new SignJWT({ ...claims(), exp: Math.floor(Date.now() / 1000) + 60 })
        .setProtectedHeader({ alg: "HS256", kid })
        .sign(new TextEncoder().encode(pem));
    const { verifier } = await providerVerifier([rsa]);
    expect(await verifier.verify(await forge("rsa-1"), Date.now())).toEqual({
      ok: false,
      why: "unknown key",
    });
    // With no HS256 keys of its own the node does not take HS256 at all.
    const keySetOnly = new PlayerTokenVerifier({ keys: [], keySet: () => Promise.resolve(rsa.publicKey) });
    expect(await keySetOnly.verify(await forge("rsa-1"), Date.now())).toEqual({
      ok: false,
      why: "algorithm not accepted",
    });
  });

  it("expired and not-yet-valid tokens are refused; the clock skew allowance lets a drifting clock through", async () => {
    const { verifier } = await providerVerifier([rsa]);
    const nowS = Math.floor(Date.now() / 1000);
    const expired = await providerToken(rsa, claims({ exp: nowS - 30 }));
    const early = await providerToken(rsa, claims({ nbf: nowS + 30 }));
    expect(await verifier.verify(expired, Date.now())).toEqual({ ok: false, why: "expired" });
    expect(await verifier.verify(early, Date.now())).toEqual({ ok: false, why: "not yet valid" });
    const lenient = (await providerVerifier([rsa], { clockSkewS: 60 })).verifier;
    expect((await lenient.verify(expired, Date.now())).ok).toBe(true);
    expect((await lenient.verify(early, Date.now())).ok).toBe(true);
    const noExp = await new SignJWT(claims())
      .setProtectedHeader({ alg: "RS256", kid: "rsa-1" })
      .sign(rsa.privateKey);
    expect(await verifier.verify(noExp, Date.now())).toEqual({ ok: false, why: "malformed" });
  });

  it("a wrong or missing iss or aud is refused", async () => {
    const { verifier } = await providerVerifier([rsa]);
    const check = async (extra: Record<string, unknown>) =>
      verifier.verify(await providerToken(rsa, claims(extra)), Date.now());
    expect(await check({ iss: "https://evil.example.com/" })).toEqual({ ok: false, why: "wrong issuer" });
    expect(await check({ iss: undefined })).toEqual({ ok: false, why: "wrong issuer" });
    expect(await check({ aud: "another-game" })).toEqual({ ok: false, why: "wrong audience" });
    expect(await check({ aud: undefined })).toEqual({ ok: false, why: "wrong audience" });
    expect((await check({ aud: ["another-game", audience] })).ok).toBe(true);
  });

  it("a forged signature and a token edited after signing are refused", async () => {
    const { verifier } = await providerVerifier([rsa]);
    const impostor = await providerKey("RS256", "rsa-1");
    expect(await verifier.verify(await providerToken(impostor, claims()), Date.now())).toEqual({
      ok: false,
      why: "bad signature",
    });
    const [head, , sig] = (await providerToken(rsa, claims())).split(".");
    const body = Buffer.from(JSON.stringify({ ...claims(), sub: "admin", exp: 9e9 })).toString("base64url");
    expect(await verifier.verify(`${head}.${body}.${sig}`, Date.now())).toEqual({
      ok: false,
      why: "bad signature",
    });
    expect(await verifier.verify("not-a-token", Date.now())).toEqual({ ok: false, why: "malformed" });
  });
});

describe("claim names", () => {
  it("reads the player id and name from the claims the provider uses", async () => {
    const { verifier } = await providerVerifier([rsa], { playerClaim: "user_id", nameClaim: "nickname" });
    const token = await providerToken(rsa, claims({ sub: "ignored", user_id: "fb-42", nickname: "Cleo" }));
    expect(await verifier.verify(token, Date.now())).toMatchObject({
      ok: true,
      claims: { sub: "fb-42", name: "Cleo" },
    });
    const defaults = await providerToken(rsa, claims());
    expect(await verifier.verify(defaults, Date.now())).toEqual({ ok: false, why: "malformed" });
    const long = await providerToken(rsa, claims({ user_id: "fb-42", nickname: "x".repeat(33) }));
    expect(await verifier.verify(long, Date.now())).toEqual({ ok: false, why: "malformed" });
  });
});

describe("the node's verifier from its settings", () => {
  const settings = {
    jwksCooldownS: 30,
    tokenIssuer: [issuer],
    tokenAudience: [audience],
    tokenPlayerClaim: "sub",
    tokenNameClaim: "name",
    tokenClockSkewS: 0,
  };
  const log = { warn: () => undefined };

  it("reads a JWKS file once", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "foyer-jwks-")), "jwks.json");
    writeFileSync(file, JSON.stringify({ keys: [rsa.jwk, ec.jwk] }));
    const verifier = playerTokenVerifierOf({ ...settings, jwksFile: file }, [], log);
    expect((await verifier.verify(await providerToken(ec, claims()), Date.now())).ok).toBe(true);
    expect(await verifier.verify(await providerToken(rotated, claims()), Date.now())).toEqual({
      ok: false,
      why: "unknown key",
    });
    expect(() => playerTokenVerifierOf({ ...settings, jwksFile: join(file, "missing") }, [], log)).toThrow(
      /JWKS file/,
    );
  });

  it("fetches a JWKS URL and logs a failed fetch", async () => {
    server = await startJwksServer([rsa.jwk]);
    const warned: unknown[] = [];
    const verifier = playerTokenVerifierOf({ ...settings, jwksUrl: server.url }, [], {
      warn: (o: unknown) => warned.push(o),
    });
    expect((await verifier.verify(await providerToken(rsa, claims()), Date.now())).ok).toBe(true);
    await server.stop();
    server = undefined;
    const other = playerTokenVerifierOf({ ...settings, jwksUrl: "http://127.0.0.1:9/jwks.json" }, [], {
      warn: (o: unknown) => warned.push(o),
    });
    expect(await other.verify(await providerToken(rsa, claims()), Date.now())).toEqual({
      ok: false,
      why: "keys unavailable",
    });
    expect(warned).toHaveLength(1);
  });
});
