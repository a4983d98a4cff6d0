import { createSecretKey } from "node:crypto";
import { loadavg } from "node:os";
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTVerifyGetKey,
} from "jose";
import {
  PlayerTokenVerifier,
  signPlayerToken,
  verifyPlayerToken,
  type TokenKey,
} from "../../gateway/index.ts";
import { handWrittenVerify } from "./hand-written-hs256.ts";

/*
 * What one player token check costs, in µs: every cold join (socket, hello, join) pays one. Run with
 * `npx tsx ops/bench/token-verify-bench.ts [tokens] [rounds]`. Each row checks N distinct tokens one after
 * the other; the rows take turns, round after round (after a warm-up round), so a busy machine slows them
 * alike. Printed: the median and the mean of one check over every round, and the wall time per check of
 * the row's tokens checked 32 at a time (a burst of hellos). The first rows take jose's HS256
 * path apart (raw `jwtVerify` with the secret's bytes, a `KeyObject`, a WebCrypto `CryptoKey`), beside
 * the hand-written check the gateway used before; the last ones are the node's verifier as the hello
 * calls it, with its own keys and with a provider's ES256 and RS256 keys.
 */

const count = Number(process.argv[2] ?? 2_000);
const rounds = Number(process.argv[3] ?? 5);
const key: TokenKey = { id: "bench", secret: "bench-secret-0123456789abcdef" };
/** One list, as a node hands its `--token-keys` to every hello. */
const keys: readonly TokenKey[] = [key];
const nowMs = Date.now();
const exp = Math.floor(nowMs / 1000) + 3600;

/** One row: its name and the check it times (which must accept every token it is given). */
interface Row {
  readonly name: string;
  readonly tokens: readonly string[];
  readonly check: (token: string) => unknown;
}

/** One round of a row: how long each check took (ms), appended to `took`. */
async function timeRound(row: Row, took: number[]): Promise<void> {
  for (const token of row.tokens) {
    const t0 = performance.now();
    if (!(await row.check(token))) throw new Error(`${row.name} refused a token`);
    took.push(performance.now() - t0);
  }
}

/** How many checks run at once in the `x32` column: hellos of a cold-join burst arrive together. */
const parallel = 32;

/** The wall time per check (µs) of all a row's tokens checked `parallel` at a time. */
async function timeParallel(row: Row): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < row.tokens.length; i += parallel) {
    await Promise.all(row.tokens.slice(i, i + parallel).map((token) => row.check(token)));
  }
  return ((performance.now() - started) / row.tokens.length) * 1000;
}

function printRow(name: string, took: number[], together: number): void {
  const mean = (took.reduce((sum, ms) => sum + ms, 0) / took.length) * 1000;
  const p50 = ([...took].sort((a, b) => a - b)[Math.floor(took.length / 2)] ?? 0) * 1000;
  const figures = [p50, mean, together].map((us) => us.toFixed(1).padStart(9)).join("");
  console.log(`${name.padEnd(38)}${figures}`);
}

async function providerTokens(
  alg: "ES256" | "RS256",
): Promise<{ tokens: string[]; keySet: JWTVerifyGetKey }> {
  const pair = await generateKeyPair(alg);
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: alg, alg };
  const tokens = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      new SignJWT({ sub: `p${i}`, name: `Player ${i}` })
        .setProtectedHeader({ alg, kid: alg })
        .setExpirationTime(exp)
        .sign(pair.privateKey),
    ),
  );
  return { tokens, keySet: createLocalJWKSet({ keys: [jwk] }) };
}

async function main(): Promise<void> {
  const hs = Array.from({ length: count }, (_, i) =>
    signPlayerToken({ sub: `p${i}`, name: `Player ${i}`, exp }, key),
  );
  const bytes = new TextEncoder().encode(key.secret);
  const keyObject = createSecretKey(bytes);
  const cryptoKey = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  const options = { algorithms: ["HS256"], requiredClaims: ["exp"], currentDate: new Date(nowMs) };
  const own = new PlayerTokenVerifier({ keys });
  const es = await providerTokens("ES256");
  const rs = await providerTokens("RS256");
  const esVerifier = new PlayerTokenVerifier({ keys, keySet: es.keySet });
  const rsVerifier = new PlayerTokenVerifier({ keys, keySet: rs.keySet });
  const accepted = async (check: Promise<{ ok: boolean }>): Promise<boolean> => (await check).ok;
  const signed = (t: string): { input: Uint8Array<ArrayBuffer>; signature: Uint8Array<ArrayBuffer> } => {
    const dot = t.lastIndexOf(".");
    return {
      input: new TextEncoder().encode(t.slice(0, dot)),
      signature: new Uint8Array(Buffer.from(t.slice(dot + 1), "base64url")),
    };
  };
  const rows: Row[] = [
    {
      name: "HS256 hand-written (before jose)",
      tokens: hs,
      check: (t) => handWrittenVerify(t, keys, nowMs),
    },
    {
      // The floor under jose: WebCrypto's HMAC runs on libuv's thread pool, one hop there and back.
      name: "HS256 crypto.subtle.verify alone",
      tokens: hs,
      check: (t) => {
        const { input, signature } = signed(t);
        return crypto.subtle.verify("HMAC", cryptoKey, signature, input);
      },
    },
    { name: "HS256 jose jwtVerify, secret bytes", tokens: hs, check: (t) => jwtVerify(t, bytes, options) },
    { name: "HS256 jose jwtVerify, KeyObject", tokens: hs, check: (t) => jwtVerify(t, keyObject, options) },
    { name: "HS256 jose jwtVerify, CryptoKey", tokens: hs, check: (t) => jwtVerify(t, cryptoKey, options) },
    { name: "HS256 node verifier", tokens: hs, check: (t) => accepted(own.verify(t, nowMs)) },
    {
      name: "HS256 verifyPlayerToken(keys)",
      tokens: hs,
      check: (t) => accepted(verifyPlayerToken(t, keys, nowMs)),
    },
    {
      name: "ES256 node verifier (JWKS)",
      tokens: es.tokens,
      check: (t) => accepted(esVerifier.verify(t, nowMs)),
    },
    {
      name: "RS256 node verifier (JWKS)",
      tokens: rs.tokens,
      check: (t) => accepted(rsVerifier.verify(t, nowMs)),
    },
  ];
  for (const row of rows) await timeRound(row, []);
  const took = rows.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, row] of rows.entries()) await timeRound(row, took[i] ?? []);
  }
  console.log(
    `token checks: ${count} tokens x ${rounds} rounds per row, µs per check (load ${loadavg()[0]?.toFixed(1)})`,
  );
  console.log(`${"".padEnd(38)}${"p50".padStart(9)}${"mean".padStart(9)}${`x${parallel}`.padStart(9)}`);
  const together: number[] = [];
  for (const row of rows) together.push(await timeParallel(row));
  for (const [i, row] of rows.entries()) printRow(row.name, took[i] ?? [], together[i] ?? 0);
}

await main();
