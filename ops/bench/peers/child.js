// Forks server.js as its own process (with --expose-gc) and talks to it over IPC.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

export function forkServer(port = 0, { quiet = false } = {}) {
  const child = fork(fileURLToPath(new URL("./server.js", import.meta.url)), [String(port)], {
    execArgv: ["--expose-gc"],
    stdio: ["ignore", quiet ? "ignore" : "inherit", quiet ? "ignore" : "inherit", "ipc"],
  });
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (message) => {
        if (message?.type !== type) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(message);
      };
      const onExit = (code, signal) => reject(new Error(`server exited (${code ?? signal})`));
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  return {
    child,
    ready: next("ready").then((m) => ({ port: m.port, url: `http://127.0.0.1:${m.port}` })),
    heap: () => {
      const answer = next("heap");
      child.send({ type: "heap" });
      return answer;
    },
  };
}
