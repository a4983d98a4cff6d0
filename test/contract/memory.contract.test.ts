import { MemoryBusServer, MemoryKvServer } from "../../fleet/index.ts";
import { describeBusContract } from "./bus-contract.ts";
import { describeKvContract } from "./kv-contract.ts";

// A handler throw is what one contract test does on purpose; the sink keeps it out of the run's errors.
const ignoreHandlerErrors = (): void => undefined;

describeKvContract("memory", () =>
  Promise.resolve(new MemoryKvServer().connect({ onHandlerError: ignoreHandlerErrors })),
);

describeBusContract("memory", () => {
  const server = new MemoryBusServer();
  return Promise.resolve([1, 2, 3].map(() => server.connect({ onHandlerError: ignoreHandlerErrors })));
});
