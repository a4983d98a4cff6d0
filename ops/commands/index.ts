/** ops/commands/: the `foyer` CLI's commands, each added to the program by a function of its own. */
export { addBenchCommand } from "./bench-command.ts";
export { addChaosCommand, addConformanceCommand, addFuzzCommand } from "./check-commands.ts";
export {
  addClusterCommand,
  addDrainCommand,
  addRollingRestartCommand,
  addStatusCommand,
} from "./fleet-commands.ts";
export { addNodeCommand } from "./node-command.ts";
export { addSdkPackCommand } from "./sdk-command.ts";
