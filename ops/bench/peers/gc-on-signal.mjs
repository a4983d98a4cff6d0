// Preloaded into a Foyer node by foyer-memory.ts (with --expose-gc): SIGUSR2 runs a full GC, so the next
// scrape of /metrics reads the heap after it.
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  globalThis.gc?.();
});
