import { describe, expect, it } from "vitest";
import { signPlayerToken } from "../../gateway/auth/player-token.ts";
import { verifyPlayerToken } from "../../gateway/auth/player-token-verifier.ts";
import { signResumeToken, verifyResumeToken } from "../../gateway/auth/resume-token.ts";
import { EpochFilter } from "../../gateway/client/epoch-filter.ts";
import {
  decodeClientFrame,
  decodeServerFrame,
  encodeFrame,
  readServerFrame,
  requestIdOf,
} from "../../gateway/protocol/codec.ts";
import { errorCodeList, isRetryable } from "../../actors/runtime/index.ts";
import { errorFrame } from "../../gateway/protocol/error-mapping.ts";
import { parseTarget } from "../../gateway/gateway-server.ts";
import { errorFrame as errorFrameSchema } from "../../gateway/protocol/server-frames.ts";
import { RateLimiter } from "../../gateway/rate-limiter.ts";

const key = { id: "k1", secret: "0123456789abcdef-secret" };
const now = 1_700_000_000_000;

describe("wire codec", () => {
  it("round-trips a frame through msgpack and JSON", () => {
    const frame = { type: "join", id: 3, code: "ab12" };
    for (const encoding of ["msgpack", "json"] as const) {
      expect(decodeClientFrame(encodeFrame(frame, encoding))).toEqual({ ok: true, frame });
    }
  });

  it("refuses malformed bytes, unknown types and unknown fields without throwing", () => {
    expect(decodeClientFrame(new Uint8Array([0x92, 0x01]))).toMatchObject({
      ok: false,
      message: "malformed msgpack",
    });
    expect(decodeClientFrame(new Uint8Array([0xc1])).ok).toBe(false);
    expect(decodeClientFrame(encodeFrame("text" as unknown as object, "msgpack"))).toMatchObject({
      message: "a frame is a map with a type",
    });
    expect(decodeClientFrame(encodeFrame([1, 2], "msgpack")).ok).toBe(false);
    expect(decodeClientFrame("{nope")).toMatchObject({ ok: false, message: "malformed JSON" });
    expect(decodeClientFrame(JSON.stringify({ type: "teleport", id: 1 })).ok).toBe(false);
    expect(decodeClientFrame(JSON.stringify({ type: "leave", id: 1, player: "x" })).ok).toBe(false);
    expect(decodeClientFrame(JSON.stringify({ type: "leave", id: -1 })).ok).toBe(false);
  });

  it("reads the request id of a refused frame so the error can answer it", () => {
    expect(requestIdOf(JSON.stringify({ type: "join", id: 9, code: 1 }))).toBe(9);
    expect(requestIdOf(JSON.stringify({ type: "join", id: "9" }))).toBeUndefined();
    expect(requestIdOf(new Uint8Array([0xc1]))).toBeUndefined();
  });

  it("the SDK's fast read checks the frame type; the full decode checks every field", () => {
    const bad = encodeFrame({ type: "pong", t: "x", now: 1 }, "msgpack");
    expect(readServerFrame(bad).ok).toBe(true);
    expect(decodeServerFrame(bad).ok).toBe(false);
    expect(readServerFrame(encodeFrame({ type: "surprise" }, "msgpack")).ok).toBe(false);
    expect(readServerFrame(new Uint8Array([0xc1])).ok).toBe(false);
  });
});

describe("player tokens", () => {
  const claims = { sub: "p1", name: "Ann", exp: now / 1000 + 60 };

  it("verifies a token signed with an accepted key", async () => {
    expect(await verifyPlayerToken(signPlayerToken(claims, key), [key], now)).toEqual({ ok: true, claims });
  });

  it("accepts any of several keys, so keys can be rotated", async () => {
    const next = { id: "k2", secret: "another-secret-0123456789" };
    expect((await verifyPlayerToken(signPlayerToken(claims, next), [key, next], now)).ok).toBe(true);
  });

  it("refuses expired, forged, unknown-key and malformed tokens with the reason", async () => {
    expect(
      await verifyPlayerToken(signPlayerToken({ ...claims, exp: now / 1000 - 1 }, key), [key], now),
    ).toEqual({
      ok: false,
      why: "expired",
    });
    const forged = signPlayerToken(claims, { id: "k1", secret: "guessed-secret-000000000" });
    expect(await verifyPlayerToken(forged, [key], now)).toEqual({ ok: false, why: "bad signature" });
    const other = signPlayerToken(claims, { id: "k9", secret: key.secret });
    expect(await verifyPlayerToken(other, [key], now)).toEqual({ ok: false, why: "unknown key" });
    expect(await verifyPlayerToken("a.b", [key], now)).toEqual({ ok: false, why: "malformed" });
  });

  it("refuses a token whose claims were edited after signing", async () => {
    const [head, , sig] = signPlayerToken(claims, key).split(".");
    const body = Buffer.from(JSON.stringify({ ...claims, sub: "admin" })).toString("base64url");
    expect(await verifyPlayerToken(`${head}.${body}.${sig}`, [key], now)).toEqual({
      ok: false,
      why: "bad signature",
    });
  });
});

describe("resume tokens", () => {
  it("name their session and player and cannot be forged", () => {
    const token = signResumeToken("s1", "p1", "session-secret-123456");
    expect(verifyResumeToken(token, "session-secret-123456")).toEqual({ session: "s1", player: "p1" });
    expect(verifyResumeToken(token, "another-secret-123456")).toBeUndefined();
    const [, player, sig] = token.split(".");
    expect(verifyResumeToken(`s2.${player}.${sig}`, "session-secret-123456")).toBeUndefined();
  });
});

describe("rate limiter", () => {
  it("admits the burst, refuses past it, and closes a flood", () => {
    let t = 0;
    const limiter = new RateLimiter(10, 5, () => t);
    const first = Array.from({ length: 5 }, () => limiter.take());
    expect(first).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(limiter.take()).toBe("refuse");
    expect(limiter.retryAfterMs()).toBeGreaterThan(0);
    const flood = Array.from({ length: 10 }, () => limiter.take());
    expect(flood).toContain("close");
    t += 60_000;
    expect(new RateLimiter(10, 5, () => t).take()).toBe("ok");
  });

  it("a penalty (a wrong lobby password) empties the bucket faster, but alone never closes", () => {
    const t = 0;
    const limiter = new RateLimiter(10, 100, () => t);
    for (let i = 0; i < 4; i++) limiter.penalize(25);
    expect(limiter.take()).toBe("refuse");
    for (let i = 0; i < 100; i++) limiter.penalize(25);
    expect(limiter.retryAfterMs()).toBeGreaterThan(9_000);
    expect(new RateLimiter(10, 100, () => t).take()).toBe("ok");
  });
});

describe("epoch filter", () => {
  it("drops frames of an older epoch and repeated sequence numbers", () => {
    const filter = new EpochFilter();
    expect(filter.admit({ key: "lobby/A", epoch: 5, seq: 1 })).toBe(true);
    expect(filter.admit({ key: "lobby/A", epoch: 5, seq: 1 })).toBe(false);
    expect(filter.admit({ key: "lobby/A", epoch: 5, seq: 2 })).toBe(true);
    expect(filter.admit({ key: "lobby/A", epoch: 9, seq: 1 })).toBe(true);
    expect(filter.admit({ key: "lobby/A", epoch: 5, seq: 3 })).toBe(false);
    expect(filter.admit({ key: "lobby/B", epoch: 1, seq: 1 })).toBe(true);
  });
});

describe("error frames", () => {
  it("carry retryAfterMs exactly when their code is retryable, and match the schema", () => {
    for (const code of errorCodeList) {
      const frame = errorFrame(code, "why", 7);
      expect(errorFrameSchema.parse(frame)).toEqual(frame);
      expect(frame.id).toBe(7);
      if (isRetryable(code)) expect(frame.retryAfterMs).toBeGreaterThan(0);
      else expect(frame).not.toHaveProperty("retryAfterMs");
    }
  });

  it("keep a given wait, leave out a missing id, and drop a wait on a final code", () => {
    expect(errorFrame("RATE_LIMITED", "slow down", undefined, 1998)).toEqual({
      type: "error",
      code: "RATE_LIMITED",
      message: "slow down",
      retryAfterMs: 1998,
    });
    expect(errorFrame("FULL", "full", 1, 500)).toEqual({
      type: "error",
      id: 1,
      code: "FULL",
      message: "full",
    });
  });
});

describe("HTTP request targets", () => {
  it("parse to a URL, or to undefined when the target is not one", () => {
    expect(parseTarget("/healthz?x=1")?.pathname).toBe("/healthz");
    expect(parseTarget(undefined)?.pathname).toBe("/");
    expect(parseTarget("http://[")).toBeUndefined();
  });
});
