import { createServer } from "node:net";

/**
 * Finds `count` distinct free TCP ports on `host` by listening on port 0 with all of them open at once,
 * then closing them. Another process may take one before it is used: callers retry a start that fails
 * with "address already in use".
 */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, host, () => {
            resolve(server);
          });
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP port was assigned");
    return address.port;
  });
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
    ),
  );
  return ports;
}
