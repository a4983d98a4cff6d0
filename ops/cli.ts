import { Command } from "commander";
import {
  addBenchCommand,
  addChaosCommand,
  addClusterCommand,
  addConformanceCommand,
  addDrainCommand,
  addFuzzCommand,
  addNodeCommand,
  addRollingRestartCommand,
  addSdkPackCommand,
  addStatusCommand,
} from "./commands/index.ts";

/** `foyer`: run a node, benchmark it. */
const program = new Command("foyer").description("Foyer: a lobby cluster for multiplayer games");

// In this order in `foyer --help`.
addNodeCommand(program);
addClusterCommand(program);
addRollingRestartCommand(program);
addStatusCommand(program);
addDrainCommand(program);
addBenchCommand(program);
addChaosCommand(program);
addConformanceCommand(program);
addFuzzCommand(program);
addSdkPackCommand(program);

await program.parseAsync(process.argv);
