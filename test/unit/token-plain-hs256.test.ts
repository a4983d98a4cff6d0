import { createHmac } from "node:crypto";
import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PlayerTokenVerifier, signPlayerToken } from "../../gateway/auth/index.ts";

// A plain HS256 token of the node's own keys is checked with node:crypto and jose's claims check, without
// WebCrypto; every other token, and every refusal, is jose's jwtVerify's, with the same answers.
const key = { id: "k1", secret: "test-secret-0123456789abcdef" };
const now = 1_700_000_000_000;
const nowS = now / 1000;
const secret = new TextEncoder().encode(key.secret);

function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: key.id, ...header }).sign(secret);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("plain HS256 tokens", () => {
  it("a token that passes is checked without WebCrypto, with the same claims", async () => {
    const verifies = vi.spyOn(crypto.subtle, "verify");
    const imports = vi.spyOn(crypto.subtle, "importKey");
    const verifier = new PlayerTokenVerifier({ keys: [key] });
    const token = signPlayerToken({ sub: "ann", name: "Ann", exp: nowS + 60 }, key);
    expect(await verifier.verify(token, now)).toEqual({
      ok: true,
      claims: { sub: "ann", name: "Ann", exp: nowS + 60 },
    });
    expect(verifies).not.toHaveBeenCalled();
    expect(imports).not.toHaveBeenCalled();
  });

  it("issuer, audience and clock skew are checked as jwtVerify checks them", async () => {
    const verifies = vi.spyOn(crypto.subtle, "verify");
    const verifier = new PlayerTokenVerifier({
      keys: [key],
      issuer: ["https://studio.example/"],
      audience: ["game"],
      clockSkewS: 30,
    });
    const claims = { sub: "ann", name: "Ann", iss: "https://studio.example/", aud: ["other", "game"] };
    const late = await signed({ ...claims, exp: nowS - 10 });
    expect(await verifier.verify(late, now)).toMatchObject({ ok: true });
    expect(verifies).not.toHaveBeenCalled();
    const answers = await Promise.all(
      [
        { ...claims, exp: nowS - 60 },
        { ...claims, exp: nowS + 60, nbf: nowS + 60 },
        { ...claims, exp: nowS + 60, iss: "https://else.example/" },
        { ...claims, exp: nowS + 60, aud: "other" },
        { sub: "ann", name: "Ann", iss: claims.iss, aud: "game" },
      ].map(async (c) => verifier.verify(await signed(c), now)),
    );
    expect(answers.map((a) => (a.ok ? "ok" : a.why))).toEqual([
      "expired",
      "not yet valid",
      "wrong issuer",
      "wrong audience",
      "malformed",
    ]);
  });

  it("a forged, altered or unknown-key token is refused with jwtVerify's reason", async () => {
    const verifier = new PlayerTokenVerifier({ keys: [key] });
    const token = signPlayerToken({ sub: "ann", name: "Ann", exp: nowS + 60 }, key);
    const [head, body] = token.split(".") as [string, string, string];
    const forged = signPlayerToken(
      { sub: "ann", name: "Ann", exp: nowS + 60 },
      { ...key, secret: "x".repeat(28) },
    );
    const otherBody = Buffer.from(JSON.stringify({ sub: "bob", name: "Bob", exp: nowS + 60 })).toString(
      "base64url",
    );
    const unknown = signPlayerToken({ sub: "ann", name: "Ann", exp: nowS + 60 }, { ...key, id: "k9" });
    const checks = await Promise.all(
      [forged, `${head}.${otherBody}.${token.split(".")[2]}`, unknown, `${head}.${body}`, `${token}.x`].map(
        (t) => verifier.verify(t, now),
      ),
    );
    expect(checks.map((c) => (c.ok ? "ok" : c.why))).toEqual([
      "bad signature",
      "bad signature",
      "unknown key",
      "malformed",
      "malformed",
    ]);
  });

  it("a header with more than alg, kid and typ goes to jwtVerify, which decides", async () => {
    const verifies = vi.spyOn(crypto.subtle, "verify");
    const verifier = new PlayerTokenVerifier({ keys: [key] });
    const claims = { sub: "ann", name: "Ann", exp: nowS + 60 };
    expect(await verifier.verify(await signed(claims, { cty: "JWT" }), now)).toMatchObject({ ok: true });
    expect(verifies).toHaveBeenCalledTimes(1);
    // jose will not sign an unknown critical header; its HMAC is made here.
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const signedPart = `${b64({ alg: "HS256", kid: key.id, crit: ["x"], x: 1 })}.${b64(claims)}`;
    const critical = `${signedPart}.${createHmac("sha256", key.secret).update(signedPart).digest("base64url")}`;
    expect(await verifier.verify(critical, now)).toEqual({ ok: false, why: "malformed" });
    const noKid = await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(secret);
    expect(await verifier.verify(noKid, now)).toEqual({ ok: false, why: "unknown key" });
  });
});
