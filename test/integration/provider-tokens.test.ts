import { SignJWT, exportSPKI } from "jose";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createNodeClient } from "../../gateway/client/node.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import {
  providerKey,
  providerToken,
  startJwksServer,
  type JwksServer,
  type ProviderKey,
} from "../support/jwks-server.ts";
import { rawSocket, startTestNode, waitFrame } from "../support/node.ts";

const issuer = "https://securetoken.example.com/my-game";
const audience = "my-game";

let rsa: ProviderKey;
let ec: ProviderKey;
let stranger: ProviderKey;
let jwks: JwksServer | undefined;
let node: RunningNode | undefined;

beforeAll(async () => {
  [rsa, ec, stranger] = await Promise.all([
    providerKey("RS256", "rsa-1"),
    providerKey("ES256", "ec-1"),
    providerKey("RS256", "stranger"),
  ]);
});

afterEach(async () => {
  await node?.stop();
  node = undefined;
  await jwks?.stop();
  jwks = undefined;
});

/** A node that checks tokens only with the provider's JWKS, Firebase-style claim names. */
async function providerNode(settings: Record<string, string> = {}): Promise<RunningNode> {
  jwks = await startJwksServer([rsa.jwk, ec.jwk]);
  node = await startTestNode({
    ...settings,
    tokenKeys: "",
    jwksUrl: jwks.url,
    tokenIssuer: issuer,
    tokenAudience: audience,
    tokenPlayerClaim: "user_id",
    tokenNameClaim: "nickname",
  });
  return node;
}

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: issuer,
  aud: audience,
  sub: "uid-1",
  user_id: "uid-1",
  nickname: "Ann",
  ...extra,
});

/** Says hello with `token` on a raw socket and returns the error frame and the close code. */
async function refusedHello(target: RunningNode, token: string) {
  const raw = await rawSocket(target, { token });
  const error = await waitFrame(raw.frames, (f) => f.type === "error");
  return { error, close: (await raw.closed).code };
}

describe("a node started with --jwks-url", () => {
  it("serves players whose tokens the provider signed (RS256 and ES256), named by the configured claims", async () => {
    const target = await providerNode();
    const client = createNodeClient({ urls: [target.url], token: await providerToken(rsa, claims()) });
    await client.connect();
    await expect(client.create()).resolves.toMatchObject({ code: expect.any(String) as string });
    client.close();
    const raw = await rawSocket(target, {
      token: await providerToken(ec, claims({ user_id: "uid-2", nickname: "Bo" })),
    });
    expect(await waitFrame(raw.frames, (f) => f.type === "welcome")).toMatchObject({
      player: { id: "uid-2", name: "Bo" },
    });
    raw.ws.close();
    expect(target.tokenKeys).toEqual([]);
  });

  it("refuses bad tokens with UNAUTHORIZED and the reason, and keeps serving", async () => {
    const target = await providerNode();
    const nowS = Math.floor(Date.now() / 1000);
    const none = [
      { alg: "none", kid: "rsa-1" },
      { ...claims(), exp: nowS + 60 },
    ]
      .map((part) => Buffer.from(JSON.stringify(part)).toString("base64url"))
      .join(".");
    const confused = await new SignJWT({ ...claims(), exp: nowS + 60 })
      .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
      .sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey)));
    const cases: [string, string][] = [
      [await providerToken(rsa, claims({ aud: "another-game" })), "wrong audience"],
      [await providerToken(rsa, claims({ iss: "https://evil.example.com/" })), "wrong issuer"],
      [await providerToken(rsa, claims({ exp: nowS - 60 })), "expired"],
      [await providerToken(rsa, claims({ nbf: nowS + 600 })), "not yet valid"],
      [await providerToken(stranger, claims()), "unknown key"],
      [`${none}.`, "algorithm not accepted"],
      [confused, "algorithm not accepted"],
    ];
    for (const [token, why] of cases) {
      const { error, close } = await refusedHello(target, token);
      expect(error, why).toMatchObject({ code: "UNAUTHORIZED", message: `token refused: ${why}` });
      expect(close).toBe(CloseCodes.UNAUTHORIZED.code);
    }
    const raw = await rawSocket(target, { token: await providerToken(rsa, claims()) });
    expect(raw.frames[0]).toMatchObject({ type: "welcome" });
    raw.ws.close();
  });

  it("a flood of unknown kids costs the provider one fetch, and players still get in", async () => {
    const target = await providerNode();
    const strangers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => providerKey("ES256", `flood-${i}`)),
    );
    const tokens = await Promise.all(
      Array.from({ length: 60 }, (_, i) => providerToken(strangers[i % strangers.length]!, claims())),
    );
    const refused = await Promise.all(tokens.map((token) => refusedHello(target, token)));
    expect(refused.every((r) => r.error.message === "token refused: unknown key")).toBe(true);
    expect(jwks?.hits()).toBe(1);
    const raw = await rawSocket(target, { token: await providerToken(rsa, claims()) });
    expect(raw.frames[0]).toMatchObject({ type: "welcome" });
    raw.ws.close();
    expect(jwks?.hits()).toBe(1);
  });

  it("a request sent right behind the hello, before its token is checked, is answered after the welcome", async () => {
    const target = await providerNode();
    const raw = await rawSocket(target, { hello: false });
    const token = await providerToken(rsa, claims());
    raw.ws.send(encodeFrame({ type: "hello", protocol: 1, token }, "msgpack"));
    raw.ws.send(encodeFrame({ type: "create", id: 1 }, "msgpack"));
    await waitFrame(raw.frames, (f) => f.id === 1);
    const types = (raw.frames as { type: string; id?: number }[]).map((f) => f.type);
    expect(types.indexOf("welcome")).toBeLessThan(types.findIndex((t) => t === "result"));
    expect(raw.ws.readyState).toBe(WebSocket.OPEN);
    raw.ws.close();
  });

  it("keys it could not fetch yet refuse the hello as UNAVAILABLE, not final: the SDK gets in once they come", async () => {
    const target = await providerNode({ jwksCooldownS: "1" });
    jwks!.answer = 500;
    const token = await providerToken(rsa, claims());
    const { error, close } = await refusedHello(target, token);
    expect(error).toMatchObject({ code: "UNAVAILABLE", message: "token refused: keys unavailable" });
    expect(error.retryAfterMs).toEqual(expect.any(Number));
    expect(close).toBe(CloseCodes.KEYS_UNAVAILABLE.code);
    const client = createNodeClient({ urls: [target.url], token, reconnectMaxMs: 200 });
    const connected = client.connect();
    setTimeout(() => {
      jwks!.answer = 200;
    }, 300);
    await connected;
    expect(client.player).toBe("uid-1");
    client.close();
  });
});
