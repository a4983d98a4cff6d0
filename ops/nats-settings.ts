import { z } from "zod";
import { int, list } from "./setting-schemas.ts";

/**
 * The settings that connect a fleet node to NATS (docs/operations.md, "A cluster on several machines"): the servers,
 * the credentials, TLS, and the replicas and snapshot shards of the buckets a fleet creates. Kept apart
 * from `settings.ts` only for size; `settings` includes them all.
 */

/** Each setting: its schema, env variable, default and help line, as in `settings`. */
export const natsSettings = {
  nats: {
    schema: list,
    env: "FOYER_NATS",
    def: "",
    help: "NATS server URLs, comma separated: join a fleet (empty = embedded, one node alone)",
  },
  natsUser: {
    schema: z.string().optional(),
    env: "FOYER_NATS_USER",
    def: undefined,
    help: "NATS user name (with --nats-pass)",
  },
  natsPass: {
    schema: z.string().optional(),
    env: "FOYER_NATS_PASS",
    def: undefined,
    help: "NATS password (prefer the environment variable to the flag)",
  },
  natsToken: {
    schema: z.string().optional(),
    env: "FOYER_NATS_TOKEN",
    def: undefined,
    help: "NATS token, instead of a user and password",
  },
  natsNkeyFile: {
    schema: z.string().min(1).optional(),
    env: "FOYER_NATS_NKEY_FILE",
    def: undefined,
    help: "file holding this node's NATS NKey seed (the SU… line of `nk -gen user`)",
  },
  natsCreds: {
    schema: z.string().min(1).optional(),
    env: "FOYER_NATS_CREDS",
    def: undefined,
    help: "`.creds` file of this node's NATS user (its JWT and NKey seed), for servers in operator mode",
  },
  natsTlsCa: {
    schema: z.string().min(1).optional(),
    env: "FOYER_NATS_TLS_CA",
    def: undefined,
    help: "PEM file of the CA that signed the NATS servers' certificates: connect with TLS only",
  },
  natsTlsCert: {
    schema: z.string().min(1).optional(),
    env: "FOYER_NATS_TLS_CERT",
    def: undefined,
    help: "PEM client certificate for NATS servers that verify their clients (with --nats-tls-key)",
  },
  natsTlsKey: {
    schema: z.string().min(1).optional(),
    env: "FOYER_NATS_TLS_KEY",
    def: undefined,
    help: "PEM key of --nats-tls-cert",
  },
  natsReplicas: {
    schema: int(1, 5),
    env: "FOYER_NATS_REPLICAS",
    def: "1",
    help: "replicas of the fleet's KV buckets (3 on a 3-server NATS cluster)",
  },
  snapshotShards: {
    schema: int(1, 100).optional(),
    env: "FOYER_SNAPSHOT_SHARDS",
    def: undefined,
    help: "fleet: snapshot buckets (lobbies-00 …), fixed when the fleet is made (default 4); a node given another count than its fleet's refuses to start",
  },
} as const;
