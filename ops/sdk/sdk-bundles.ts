import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";

/** The repository's root, which every path the SDK build reports is relative to. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The SDK's entry points, as the repository holds them: the package is built from where they are. */
export const sdkEntries = { index: "gateway/client/index.ts", node: "gateway/client/node.ts" } as const;

/**
 * Marks the repository's own modules free of side effects, so a bundle keeps only the modules whose
 * exports it uses. The protocol imports its schemas through the actors' index files; without this,
 * esbuild would keep every module those re-export (the actors' machines among them) for their top-level
 * statements.
 */
const ownModulesArePure: Plugin = {
  name: "own-modules-are-pure",
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === "inner" || args.importer.includes("node_modules")) return undefined;
      const resolved = await plugin.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "inner",
      });
      return { ...resolved, sideEffects: false };
    });
  },
};

/**
 * zod's namespace re-exports every locale (`z.locales`), which a bundle cannot drop: half of the browser
 * module was error messages in 40 languages. The SDK never switches locale, so the browser module keeps
 * English, the one zod sets by default.
 */
const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: join(args.resolveDir, "../locales/en.js"), namespace: "zod-english-only" }
        : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** The repository files whose code ended up in a bundle (a module it reached but dropped is not one). */
export function bundledSources(metafile: Metafile): string[] {
  const sources = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, use] of Object.entries(output.inputs)) {
      // Inputs in a plugin's namespace (`zod-english-only:…`) are zod's, not the repository's.
      const ours = !input.startsWith("node_modules/") && !input.includes(":");
      if (use.bytesInOutput > 0 && ours) sources.add(input);
    }
  }
  return [...sources].sort();
}

/** ES modules for bundlers and Node; `external` (the package's dependencies) stay imports. */
export async function buildEsm(distDir: string, external: readonly string[]): Promise<Metafile> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: sdkEntries,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    outdir: distDir,
    external: [...external],
    plugins: [ownModulesArePure],
    metafile: true,
    logLevel: "warning",
  });
  return result.metafile;
}

/** One self-contained ES module for a page's `<script type="module">` (zod and msgpackr inside). */
export async function buildBrowserBundle(outfile: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: [sdkEntries.index],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    outfile,
    plugins: [zodEnglishOnly, ownModulesArePure],
    metafile: true,
    logLevel: "warning",
  });
  return result.metafile;
}
