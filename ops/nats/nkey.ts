import { nkeys } from "nats";

/** The part of nats.js's re-exported nkeys.js used here (its types do not resolve through `nats`). */
interface KeyPair {
  getPublicKey(): string;
  getSeed(): Uint8Array;
}
const typedNkeys = nkeys as unknown as {
  createUser(): KeyPair;
  fromSeed(seed: Uint8Array): KeyPair;
};

/** The public key (`U…`) of an NKey user seed (`SU…`), as a server's `authorization` block lists it. */
export function nkeyPublicKey(seed: string): string {
  return typedNkeys.fromSeed(new TextEncoder().encode(seed.trim())).getPublicKey();
}

/** A new NKey user: its seed (what the node keeps) and public key (what the server's config lists). */
export function newNkeyUser(): { readonly seed: string; readonly publicKey: string } {
  const pair = typedNkeys.createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}
