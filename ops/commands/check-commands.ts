import { Option, type Command } from "commander";
import { faultKinds, runChaos, type FaultKind } from "../chaos/index.ts";
import { runSuite } from "../conformance/run-suite.ts";
import { fuzzFailed, runFuzz } from "../fuzz/index.ts";

/** `foyer chaos`: a local fleet under seeded faults, audited for what was acknowledged. */
export function addChaosCommand(program: Command): void {
  program
    .command("chaos")
    .description(
      "start a local fleet, run SDK bots, kill, freeze and drain nodes and kill nats-servers by a seeded " +
        "schedule, then audit that nothing acknowledged was lost (exit 1 when something was)",
    )
    .option("--nodes <n>", "Foyer node processes", "3")
    .option("--nats <n>", "nats-servers (3 = a JetStream cluster with R3 buckets)", "3")
    .option("--seconds <s>", "how long the load and the faults run", "60")
    .option("--kills <n>", "how many faults to apply (node kills, stops, nats-server kills, drains)", "10")
    .option("--seed <n>", "the seed of the fault schedule and the bots (default: random, printed)")
    .option("--bots <n>", "SDK bots (default 8 per node)")
    .option("--faults-of <kinds>", `only faults of these kinds, comma separated (${faultKinds.join(", ")})`)
    .option("--json", "end with one JSON object of the figures on the last line")
    .action(
      async (opts: {
        nodes: string;
        nats: string;
        seconds: string;
        kills: string;
        seed?: string;
        bots?: string;
        faultsOf?: string;
        json?: boolean;
      }) => {
        const seed = opts.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(opts.seed);
        const numbers = {
          nodes: opts.nodes,
          nats: opts.nats,
          seconds: opts.seconds,
          kills: opts.kills,
          seed,
        };
        const bad = Object.entries(numbers).find(([, v]) => !Number.isInteger(Number(v)) || Number(v) < 0);
        if (bad) {
          process.stderr.write(`foyer chaos: --${bad[0]} must be a whole number, got ${String(bad[1])}\n`);
          process.exit(2);
        }
        const kinds = opts.faultsOf?.split(",").map((kind) => kind.trim());
        const unknownKind = kinds?.find((kind) => !(faultKinds as readonly string[]).includes(kind));
        if (unknownKind !== undefined) {
          process.stderr.write(
            `foyer chaos: --faults-of takes ${faultKinds.join(", ")}; got ${unknownKind}\n`,
          );
          process.exit(2);
        }
        const result = await runChaos({
          nodes: Number(opts.nodes),
          nats: Number(opts.nats),
          seconds: Number(opts.seconds),
          faults: Number(opts.kills),
          seed,
          ...(opts.bots === undefined ? {} : { bots: Number(opts.bots) }),
          ...(kinds === undefined ? {} : { kinds: kinds as FaultKind[] }),
          progress: process.stderr.isTTY,
          print: (line) => process.stdout.write(`${line}\n`),
        });
        if (opts.json === true) process.stdout.write(`${JSON.stringify(result.summary)}\n`);
        process.exitCode = result.failed ? 1 : 0;
      },
    );
}

/** `foyer conformance`: the protocol scenarios against a node over raw WebSockets. */
export function addConformanceCommand(program: Command): void {
  program
    .command("conformance")
    .description(
      "run the protocol conformance scenarios (conformance/scenarios/) against a node over raw WebSockets, " +
        "in JSON and msgpack; exit 1 when one fails (docs/conformance.md)",
    )
    .requiredOption(
      "--url <url>",
      "the node's WebSocket URL, e.g. ws://127.0.0.1:7350; repeat it for each node of a fleet (the scenarios " +
        "that need several nodes are skipped without)",
      (url: string, urls: string[] | undefined) => [...(urls ?? []), url],
    )
    .option(
      "--admin <url>",
      "a node's admin API URL, in the order of --url, for the scenarios that drain a node (skipped without)",
      (url: string, urls: string[] | undefined) => [...(urls ?? []), url],
    )
    .option("--scenario <name>", "run only this scenario")
    .addOption(
      new Option("--encoding <encoding>", "which encodings to run")
        .choices(["json", "msgpack", "both"])
        .default("both"),
    )
    .option(
      "--token-key <kid:secret>",
      "sign the players' tokens with this key (one of the node's --token-keys); default: the node's dev tokens",
    )
    .option("--timeout-ms <ms>", "how long an expectation waits", "5000")
    .option("--json", "print one JSON object with every result")
    .action(
      async (opts: {
        url: string[];
        admin?: string[];
        scenario?: string;
        encoding: string;
        tokenKey?: string;
        timeoutMs: string;
        json?: boolean;
      }) => {
        process.exitCode = await runSuite(
          {
            url: opts.url[0] ?? "",
            moreUrls: opts.url.slice(1),
            ...(opts.admin === undefined ? {} : { adminUrls: opts.admin }),
            encodings: opts.encoding === "both" ? ["json", "msgpack"] : [opts.encoding as "json" | "msgpack"],
            timeoutMs: Number(opts.timeoutMs),
            json: opts.json ?? false,
            ...(opts.scenario === undefined ? {} : { scenario: opts.scenario }),
            ...(opts.tokenKey === undefined ? {} : { tokenKey: opts.tokenKey }),
          },
          (text) => process.stdout.write(text),
        );
      },
    );
}

/** `foyer fuzz`: seeded random and mutated frames at a node beside honest bots. */
export function addFuzzCommand(program: Command): void {
  program
    .command("fuzz")
    .description(
      "start a node (or use --url) and send it seeded random and mutated frames from many sockets beside " +
        "honest SDK bots: wrong types in every field, wrong shapes, truncated, oversized and garbage frames, " +
        "frames out of order, other players' ids and resume tokens, floods. Counts node crashes, honest " +
        "lobbies changed, frames answered by neither a typed error nor a close code, hijacked sessions, INTERNAL " +
        "answers and error lines in the node's log (exit 1 unless all are 0); " +
        "docs/fuzz.md",
    )
    .option("--frames <n>", "how many frames the fuzz sockets send in all", "10000")
    .option("--seed <n>", "the seed of every fuzz socket's choices (default: random, printed)")
    .option(
      "--json",
      "end with one JSON object on the last line: seed, frames, crashes, changedLobbies, unanswered, " +
        "hijacked, categories (frames by kind), fieldsCovered, closes, errorsByCode, rate (frames/s), ...",
    )
    .option("--url <ws>", "fuzz a running dev-mode node at this WebSocket URL instead of starting one")
    .option("--connections <n>", "fuzz sockets open at once", "32")
    .option("--bots <n>", "honest SDK bots, two a lobby", "6")
    .option(
      "--max-frame-bytes <n>",
      "the node's maxFrameBytes (set on the started node; say it with --url)",
      "65536",
    )
    .action(
      async (opts: {
        frames: string;
        seed?: string;
        url?: string;
        connections: string;
        bots: string;
        maxFrameBytes: string;
        json?: boolean;
      }) => {
        const seed = opts.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(opts.seed);
        const numbers = {
          frames: opts.frames,
          seed,
          connections: opts.connections,
          bots: opts.bots,
          "max-frame-bytes": opts.maxFrameBytes,
        };
        const bad = Object.entries(numbers).find(([, v]) => !Number.isInteger(Number(v)) || Number(v) < 0);
        if (bad) {
          process.stderr.write(`foyer fuzz: --${bad[0]} must be a whole number, got ${String(bad[1])}\n`);
          process.exit(2);
        }
        const summary = await runFuzz({
          frames: Number(opts.frames),
          seed,
          ...(opts.url === undefined ? {} : { url: opts.url }),
          connections: Math.max(1, Number(opts.connections)),
          bots: Number(opts.bots),
          maxFrameBytes: Number(opts.maxFrameBytes),
          print: (line) => process.stderr.write(`${line}\n`),
        });
        const s = summary;
        process.stdout.write(
          `fuzz seed ${String(seed)}: ${String(s.frames)} frames on ${String(s.connections)} sockets in ${String(s.seconds)} s ` +
            `(${String(s.rate)}/s): ${String(s.crashes)} crashes, ${String(s.changedLobbies)} lobbies changed, ` +
            `${String(s.unanswered)} unanswered, ${String(s.hijacked)} sessions hijacked, ` +
            `${String(s.errorsByCode.INTERNAL ?? 0)} INTERNAL answers, ${String(s.nodeErrors)} node errors; ` +
            `${String(s.fieldsCovered)}/${String(s.fieldsTotal)} fields given wrong values, ${String(s.honestAckedOps)} honest ops\n`,
        );
        for (const sample of s.samples) process.stdout.write(`  ${sample}\n`);
        if (opts.json === true) {
          // The samples were printed above; the last line is the figures alone.
          process.stdout.write(`${JSON.stringify({ ...s, samples: undefined })}\n`);
        }
        process.exitCode = fuzzFailed(s) ? 1 : 0;
      },
    );
}
