/** One nats-server of a local deployment: where it listens and keeps its JetStream store. */
export interface NatsServerConfig {
  /** `server_name`: a clustered JetStream server exits without one. */
  readonly name: string;
  readonly host: string;
  /** Client port. */
  readonly port: number;
  /** Monitoring (HTTP) port; omitted → no monitoring endpoint. */
  readonly httpPort?: number;
  readonly storeDir: string;
  /** `sync_interval: always`: fsync every write instead of every two minutes (measure before using). */
  readonly syncAlways?: boolean;
  /** Client accounts: when given, a client must present one of them (routes are not affected). */
  readonly users?: readonly NatsServerUser[];
  /** TLS for clients: when given, a client must speak TLS (routes are not affected). */
  readonly tls?: NatsServerTls;
  /** Operator mode (JWT auth): a client must present a user JWT of one of these accounts. Not with `users`. */
  readonly operator?: NatsServerOperator;
  /** Present for a member of a cluster. */
  readonly cluster?: {
    readonly name: string;
    /** This server's route port. */
    readonly port: number;
    /** Route ports of every member, this one included (nats-server skips itself). */
    readonly routePorts: readonly number[];
  };
}

/** A server's client TLS: its certificate and key, and with `verify` the CA its clients' certificates need. */
export interface NatsServerTls {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile?: string;
  /** Clients must present a certificate signed by `caFile`. */
  readonly verify?: boolean;
}

/**
 * A server in operator mode: the operator JWT it trusts, and the account JWTs (signed by that operator)
 * preloaded into a `MEMORY` resolver, by account public key. A user JWT of any other account is refused,
 * as is one its account's JWT lists under `revocations`.
 */
export interface NatsServerOperator {
  readonly jwt: string;
  /** The account the server's own events and requests (`$SYS`) go to; it needs no JetStream. */
  readonly systemAccount?: string;
  readonly accounts: Readonly<Record<string, string>>;
}

/** A client account of a server's `authorization` block: a user and password, or an NKey's public key. */
export type NatsServerUser = { readonly user: string; readonly password: string } | { readonly nkey: string };

/**
 * The config file text for one server (the templates, as code): JetStream on, loopback only, and for a
 * cluster member the full mesh of routes. E.g. for a 3-server cluster:
 *
 * ```
 * server_name: n1
 * host: 127.0.0.1
 * port: 14222
 * jetstream { store_dir: "/tmp/…/n1", max_memory_store: 256MB, max_file_store: 1GB }
 * cluster { name: foyer, host: 127.0.0.1, port: 16222,
 *   routes: [nats-route://127.0.0.1:16222, nats-route://127.0.0.1:16223, nats-route://127.0.0.1:16224] }
 * ```
 */
export function natsConfigText(config: NatsServerConfig): string {
  const lines = [`server_name: ${quote(config.name)}`, `host: ${quote(config.host)}`, `port: ${config.port}`];
  if (config.httpPort !== undefined) lines.push(`http: ${quote(`${config.host}:${config.httpPort}`)}`);
  lines.push(
    "jetstream {",
    `  store_dir: ${quote(config.storeDir)}`,
    "  max_memory_store: 256MB",
    "  max_file_store: 1GB",
    ...(config.syncAlways === true ? ["  sync_interval: always"] : []),
    "}",
  );
  if (config.users !== undefined) {
    const users = config.users.map((account) =>
      "nkey" in account
        ? `{ nkey: ${quote(account.nkey)} }`
        : `{ user: ${quote(account.user)}, password: ${quote(account.password)} }`,
    );
    lines.push("authorization {", `  users: [${users.join(", ")}]`, "}");
  }
  if (config.operator !== undefined) lines.push(...operatorLines(config.operator));
  if (config.tls !== undefined) {
    const { tls } = config;
    lines.push(
      "tls {",
      `  cert_file: ${quote(tls.certFile)}`,
      `  key_file: ${quote(tls.keyFile)}`,
      ...(tls.caFile === undefined ? [] : [`  ca_file: ${quote(tls.caFile)}`]),
      ...(tls.verify === true ? ["  verify: true"] : []),
      "}",
    );
  }
  const { cluster } = config;
  if (cluster !== undefined) {
    const routes = cluster.routePorts.map((port) => quote(`nats-route://${config.host}:${port}`));
    lines.push(
      "cluster {",
      `  name: ${quote(cluster.name)}`,
      `  host: ${quote(config.host)}`,
      `  port: ${cluster.port}`,
      `  routes: [${routes.join(", ")}]`,
      "}",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The operator, its accounts in a `MEMORY` resolver, and the system account (JWTs inline: no files). */
function operatorLines(operator: NatsServerOperator): string[] {
  const accounts = Object.entries(operator.accounts).map(([key, jwt]) => `  ${quote(key)}: ${quote(jwt)}`);
  return [
    `operator: ${quote(operator.jwt)}`,
    ...(operator.systemAccount === undefined ? [] : [`system_account: ${quote(operator.systemAccount)}`]),
    "resolver: MEMORY",
    "resolver_preload: {",
    ...accounts,
    "}",
  ];
}

/** A double-quoted config string (paths may hold characters the config parser would otherwise read). */
function quote(value: string): string {
  return JSON.stringify(value);
}
