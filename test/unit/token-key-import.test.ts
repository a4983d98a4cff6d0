import { afterEach, describe, expect, it, vi } from "vitest";
import { PlayerTokenVerifier, signPlayerToken, verifyPlayerToken } from "../../gateway/auth/index.ts";

const key = { id: "k1", secret: "test-secret-0123456789abcdef" };
const next = { id: "k2", secret: "next-secret-0123456789abcdef" };
const now = 1_700_000_000_000;
// Expired: a token that passes is checked without WebCrypto (token-plain-hs256.test.ts); jose, and its
// imported keys, check the ones refused.
const token = (i: number, k = key) =>
  signPlayerToken({ sub: `p${i}`, name: `P${i}`, exp: now / 1000 - 60 }, k);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("HS256 secrets are imported once", () => {
  it("a verifier imports each secret on its first use only, also when tokens arrive together", async () => {
    const imports = vi.spyOn(crypto.subtle, "importKey");
    const verifier = new PlayerTokenVerifier({ keys: [key, next] });
    const checks = await Promise.all(Array.from({ length: 5 }, (_, i) => verifier.verify(token(i), now)));
    expect(checks).toEqual(Array.from({ length: 5 }, () => ({ ok: false, why: "expired" })));
    for (let i = 0; i < 5; i++)
      expect(await verifier.verify(token(i, next), now)).toEqual({ ok: false, why: "expired" });
    expect(imports).toHaveBeenCalledTimes(2);
    expect(await verifier.verify(`${token(9).slice(0, -2)}xx`, now)).toEqual({
      ok: false,
      why: "bad signature",
    });
  });

  it("the same list of keys, checked again and again, is imported once", async () => {
    const imports = vi.spyOn(crypto.subtle, "importKey");
    const keys = [key];
    for (let i = 0; i < 5; i++)
      expect(await verifyPlayerToken(token(i), keys, now)).toEqual({ ok: false, why: "expired" });
    expect(imports).toHaveBeenCalledTimes(1);
  });
});
