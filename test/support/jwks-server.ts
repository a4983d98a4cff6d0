import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

/** A signing key of a pretend identity provider: its private half and its public JWK (with kid and alg). */
export interface ProviderKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: JWK;
}

/** Makes a provider key for `alg` (RS256, ES256, EdDSA). */
export async function providerKey(alg: string, kid: string): Promise<ProviderKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** A provider token: `claims` signed with `key` (header: its alg and kid), valid for an hour by default. */
export function providerToken(
  key: ProviderKey,
  claims: JWTPayload,
  nowS = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT({ exp: nowS + 3600, iat: nowS, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
    .sign(key.privateKey);
}

/** A JWKS endpoint on 127.0.0.1: the keys it serves can change, it counts its requests, it can fail. */
export interface JwksServer {
  readonly url: string;
  /** The keys served (change them to rotate). */
  keys: JWK[];
  /** Requests answered so far. */
  readonly hits: () => number;
  /** 200 serves the keys; anything else answers that status; "hang" never answers. */
  answer: 200 | 500 | "hang";
  stop(): Promise<void>;
}

/** Starts a JWKS server on a free port of 127.0.0.1 serving `keys`. */
export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    if (state.answer === "hang") return;
    if (state.answer !== 200) {
      res.writeHead(state.answer).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const state: JwksServer = {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    keys,
    hits: () => hits,
    answer: 200,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}
