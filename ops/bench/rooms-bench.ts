import { pino } from "pino";
import { createNodeClient, type FoyerClient } from "../../gateway/index.ts";
import { benchKey, benchToken, benchTokenKeys, unlimitedClients } from "./bench-key.ts";
import { loadConfig } from "../config.ts";
import type { TurnDurability } from "../../actors/room/index.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNode, type RunningNode } from "../node/start-node.ts";
import { summarize, type LatencySummary } from "./latency.ts";

/** Options of `foyer bench --scenario rooms`. */
export interface RoomsBenchOptions {
  /** The most rooms the bench steps up to (it doubles from `startRooms`). */
  readonly maxRooms: number;
  readonly startRooms: number;
  /** How long each step's load is measured. */
  readonly seconds: number;
  readonly turnMs: number;
  /** The p99 turn lateness (ms) past which a step no longer counts towards the capacity. */
  readonly lateLimitMs: number;
  /** The rooms' `turnDurability`: `persisted` writes every turn before it is sent. Default volatile. */
  readonly durability?: TurnDurability;
  /** Run the node in a fleet over one local nats-server (its snapshots in JetStream), not embedded. */
  readonly fleet?: boolean;
  readonly json: boolean;
}

/** One step of the rooms bench: so many rooms at once. */
export interface RoomsStep {
  readonly rooms: number;
  readonly turnsPerSecond: number;
  readonly lateness: LatencySummary;
  readonly stateBytesPerRoom: number;
}

/** The figures the rooms bench prints. */
export interface RoomsBenchResult {
  readonly scenario: "rooms";
  readonly durability: TurnDurability;
  /** Where the snapshots went: the embedded in-memory store, or JetStream through one nats-server. */
  readonly store: "memory" | "nats";
  readonly turnMs: number;
  readonly seats: 4;
  readonly steps: readonly RoomsStep[];
  /** The most rooms whose p99 lateness stayed within `lateLimitMs` (0 when even the first step did not). */
  readonly capacity: number;
  readonly lateLimitMs: number;
}

const seats = 4;
/** Turns back over which a room's clock phase is taken (two seconds at 100 ms). */
const phaseWindow = 20;

/** One seat of a bench room: its client and the arrival times of the host seat's turns. */
interface BenchRoom {
  readonly clients: FoyerClient[];
  /** [turn number, arrival ms] of every turn the host seat received while measuring. */
  readonly arrivals: [number, number][];
  /** Turn frames received by all four seats while measuring. */
  delivered: number;
}

/**
 * Rooms of 4 seats on one embedded node, each seat sending a command for every turn it receives at
 * `turnMs`: the number of rooms doubles until `maxRooms` (or until the lateness passes the limit). A
 * turn's lateness is how much later than its tick it reached the host seat: arrival − turn × turnMs,
 * less the smallest such value over the room's previous 20 turns (the clock's phase). The clients run in the same process as
 * the node, so the figures are a floor for a node serving remote players.
 */
export async function runRoomsBench(options: RoomsBenchOptions): Promise<RoomsBenchResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const durability = options.durability ?? "volatile";
  const store = options.fleet === true ? "nats" : "memory";
  say(
    `rooms bench: ${seats} seats a room, turnMs ${options.turnMs}, turnDurability ${durability}, ` +
      `snapshots in ${store}, ${options.seconds} s a step`,
  );
  const nats = options.fleet === true ? await startNats({ servers: 1 }) : undefined;
  const node = await startBenchNode(options.maxRooms, nats);
  const rooms: BenchRoom[] = [];
  const steps: RoomsStep[] = [];
  let measuring = false;
  try {
    for (let target = options.startRooms; target <= options.maxRooms; target *= 2) {
      while (rooms.length < target)
        rooms.push(await openRoom(node, rooms.length, options.turnMs, durability, () => measuring));
      for (const room of rooms) {
        room.arrivals.length = 0;
        room.delivered = 0;
      }
      measuring = true;
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
      measuring = false;
      const elapsedS = (performance.now() - started) / 1000;
      const step = stepOf(node, rooms, options.turnMs, elapsedS);
      steps.push(step);
      say(
        `  ${String(step.rooms).padStart(5)} rooms  ${step.turnsPerSecond.toFixed(0).padStart(7)} turns/s delivered  ` +
          `lateness p50 ${step.lateness.p50Ms.toFixed(2)} ms  p99 ${step.lateness.p99Ms.toFixed(2)} ms  ` +
          `${step.stateBytesPerRoom.toFixed(0)} state bytes a room`,
      );
      if (step.lateness.p99Ms > options.lateLimitMs) break;
    }
  } finally {
    for (const room of rooms) for (const client of room.clients) client.close();
    await node.stop();
    await nats?.stop();
  }
  const within = steps.filter((s) => s.lateness.p99Ms <= options.lateLimitMs);
  const capacity = within.at(-1)?.rooms ?? 0;
  say(`  capacity: ${capacity} rooms before the p99 lateness passes ${options.lateLimitMs} ms`);
  const result: RoomsBenchResult = {
    scenario: "rooms",
    durability,
    store,
    turnMs: options.turnMs,
    seats,
    steps,
    capacity,
    lateLimitMs: options.lateLimitMs,
  };
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}

function startBenchNode(maxRooms: number, nats: NatsLauncher | undefined): Promise<RunningNode> {
  const config = loadConfig(
    {
      ...(nats === undefined ? {} : { nats: nats.url(0), natsReplicas: "1", sessionSecret: benchKey.secret }),
      port: "0",
      adminPort: "0",
      tokenKeys: benchTokenKeys,
      ...unlimitedClients,
      maxRooms: String(maxRooms * 2),
      logLevel: "silent",
    },
    {},
  );
  return startNode(config, pino({ level: "silent" }));
}

/** A room created directly by its first seat, joined by three more, everyone ready: the match runs. */
async function openRoom(
  node: RunningNode,
  index: number,
  turnMs: number,
  turnDurability: TurnDurability,
  measuring: () => boolean,
): Promise<BenchRoom> {
  const clients = await Promise.all(
    Array.from({ length: seats }, async (_, seat) => {
      const token = benchToken(`room${index}-seat${seat}`, `R${index}S${seat}`);
      const client = createNodeClient({ urls: [node.url], token });
      await client.connect();
      return client;
    }),
  );
  const room: BenchRoom = { clients, arrivals: [], delivered: 0 };
  for (const [seat, client] of clients.entries()) {
    client.on("roomEvent", (event) => {
      if (event.type !== "turn") return;
      if (measuring()) {
        room.delivered++;
        if (seat === 0) room.arrivals.push([event.turn, performance.now()]);
      }
      // A command for the next turn, answered or refused: the bench measures the turns, not the answers.
      client.command(`s${seat}t${event.turn}`).catch(() => undefined);
    });
  }
  const [host, ...guests] = clients as [FoyerClient, ...FoyerClient[]];
  const { room: code } = await host.createRoom({ seats, mode: "bench", turnMs, turnDurability });
  for (const guest of guests) await guest.joinRoom(code);
  await Promise.all(clients.map((c) => c.roomReady()));
  return room;
}

function stepOf(node: RunningNode, rooms: readonly BenchRoom[], turnMs: number, elapsedS: number): RoomsStep {
  const lateness: number[] = [];
  let delivered = 0;
  for (const room of rooms) {
    delivered += room.delivered;
    // The clock's phase is the earliest a turn arrived lately: a clock that re-based after a late timer
    // has a new phase, and its turns are not all late from then on.
    const phases = room.arrivals.map(([turn, at]) => at - turn * turnMs);
    for (const [i, phase] of phases.entries()) {
      lateness.push(phase - Math.min(...phases.slice(Math.max(0, i - phaseWindow), i + 1)));
    }
  }
  let stateBytes = 0;
  for (const room of rooms) {
    const code = room.clients[0]?.room?.code;
    stateBytes += code === undefined ? 0 : JSON.stringify(node.system.peek(`room/${code}`) ?? null).length;
  }
  return {
    rooms: rooms.length,
    turnsPerSecond: delivered / elapsedS,
    lateness: summarize(lateness),
    stateBytesPerRoom: stateBytes / rooms.length,
  };
}
