import {
  type KeyPair,
  type Permissions,
  createAccount,
  createOperator,
  createUser,
  decode,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
} from "@nats-io/jwt";
import type { NatsLocalOperator } from "../../ops/nats/index.ts";

/**
 * An operator, its accounts and their users, made in-process the way `nsc` makes them: what a NATS
 * server in operator mode trusts, and the `.creds` files its clients log in with.
 */

/**
 * No limits of the account's own (-1): a limit the JWT leaves out counts as 0, so an account with only
 * JetStream's would take no connection.
 */
const accountLimits = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
};
/** JetStream with no limits of the account's own (the server's are the only ones). */
const jetstreamLimits = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };

/** An operator: the key that signs account JWTs. */
export interface TestOperator {
  readonly key: KeyPair;
  readonly jwt: string;
}

/** A user of an account, as a `.creds` file's text, its public key and when its JWT was issued. */
export interface TestUser {
  readonly creds: string;
  readonly publicKey: string;
  readonly issuedAt: number;
}

/** A new operator, whose JWT names `systemAccount` (the account of the server's own `$SYS` traffic). */
export async function newOperator(systemAccount: KeyPair): Promise<TestOperator> {
  const key = createOperator();
  const jwt = await encodeOperator("foyer-test", key, { system_account: systemAccount.getPublicKey() });
  return { key, jwt };
}

/** A new account key (its JWT is made by accountJwt, again whenever its claims change). */
export function newAccount(): KeyPair {
  return createAccount();
}

/**
 * An account's JWT signed by the operator: with JetStream allowed when `jetstream`, and with `revoked`
 * users' JWTs issued up to the given second refused (`revocations`).
 */
export async function accountJwt(
  operator: TestOperator,
  name: string,
  account: KeyPair,
  opts: { jetstream?: boolean; revoked?: readonly TestUser[] } = {},
): Promise<string> {
  const revocations = Object.fromEntries((opts.revoked ?? []).map((user) => [user.publicKey, user.issuedAt]));
  return encodeAccount(
    name,
    account,
    {
      limits: opts.jetstream === true ? { ...accountLimits, ...jetstreamLimits } : accountLimits,
      ...(opts.revoked === undefined ? {} : { revocations }),
    },
    { signer: operator.key },
  );
}

/**
 * A new user of `account`, with these permissions (default: everything in the account), its JWT valid
 * until `expiresAt` (seconds since the epoch) when given.
 */
export async function newUser(
  account: KeyPair,
  name: string,
  permissions?: Permissions,
  expiresAt?: number,
): Promise<TestUser> {
  const key = createUser();
  const jwt = await encodeUser(
    name,
    key,
    account,
    permissions ?? {},
    expiresAt === undefined ? {} : { exp: expiresAt },
  );
  return {
    creds: new TextDecoder().decode(fmtCreds(jwt, key)),
    publicKey: key.getPublicKey(),
    issuedAt: decode(jwt).iat,
  };
}

/** What startNats({ operator }) takes: the operator, the accounts the servers know, the probe's user. */
export function serverOperator(
  operator: TestOperator,
  system: KeyPair,
  accounts: Readonly<Record<string, string>>,
  probe: TestUser,
): NatsLocalOperator {
  return { jwt: operator.jwt, systemAccount: system.getPublicKey(), accounts, probeCreds: probe.creds };
}
