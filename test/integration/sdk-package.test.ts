import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { startTestNode, tokenFor } from "../support/node.ts";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "../..");
const rootManifest = JSON.parse(await readFile(join(repo, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};

/**
 * The SDK as a web game gets it: `npm run sdk:pack` builds the tarball, a scratch project outside the
 * repository installs it (npm's cache first), and plain Node and a consumer's tsc use what it holds.
 */
let scratch: string;
let tarball: string;
/** The repository files whose code the build put in the bundles. */
let bundled: string[];
let node: RunningNode | undefined;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "foyer-sdk-game-"));
  const out = join(scratch, "out");
  const { stdout } = await run("npm", ["run", "--silent", "sdk:pack", "--", "--out", out, "--json"], {
    cwd: repo,
  });
  ({ tarball, bundled } = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    tarball: string;
    bundled: string[];
  });
  const game = { name: "a-web-game", private: true, type: "module" };
  await writeFile(join(scratch, "package.json"), JSON.stringify(game));
  await run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      tarball,
      `ws@${rootManifest.dependencies.ws}`,
    ],
    { cwd: scratch },
  );
  node = await startTestNode();
}, 240_000);

afterAll(async () => {
  await node?.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** Paths of server code: none may be in the package, as a file or as a declaration. */
const serverPaths = [
  /(^|\/)fleet\//,
  /(^|\/)ops\//,
  /(^|\/)gateway\/(requests|sessions|auth)\//,
  /(^|\/)gateway\/[^/]+\.(js|ts)$/,
  /(^|\/)actors\/runtime\/(?!error-codes\.d\.ts$)/,
  /(^|\/)actors\/.*-(machine|kind|state|messages|env)\.d\.ts$/,
  /(^|\/)actors\/[^/]+\/index\.d\.ts$/,
];

async function tarballFiles(): Promise<string[]> {
  const { stdout } = await run("tar", ["tzf", tarball]);
  return stdout.trim().split("\n");
}

describe("the SDK package", () => {
  it("holds ESM bundles, a browser bundle and .d.ts types, and no server file", async () => {
    const files = await tarballFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/README.md",
        "package/dist/index.js",
        "package/dist/node.js",
        "package/dist/foyer-client.browser.js",
        "package/types/gateway/client/index.d.ts",
        "package/types/gateway/client/node.d.ts",
      ]),
    );
    for (const file of files) {
      expect(file, "a file of an allowed folder").toMatch(
        /^package\/(dist\/[^/]+\.js|types\/.+\.d\.ts|[^/]+)$/,
      );
      for (const server of serverPaths) expect(file, "server code in the package").not.toMatch(server);
    }
  });

  it("bundles no server module's code, and the browser bundle imports nothing", async () => {
    const installed = join(scratch, "node_modules/@foyer/client");
    const browser = await readFile(join(installed, "dist/foyer-client.browser.js"), "utf8");
    // Self-contained: no bare import (zod and msgpackr are inside), nothing for Node.
    expect(browser).not.toMatch(/\bimport\s*(\{[^}]*\}|\*\s*as\s*\w+|\w+)\s*from\s*["']|\bimport\s*\(/);
    expect(browser).not.toMatch(/\brequire\(|["']node:/);
    // zod's messages in English only: its other locales were half the module.
    expect(browser).toMatch(/Invalid input/);
    expect(browser).not.toMatch(/Ung(ü|\\xFC)ltige Eingabe/);
    const esm = await readFile(join(installed, "dist/node.js"), "utf8");
    expect(esm).toMatch(/from\s*"ws"/);
    // What esbuild kept: the SDK, the protocol, and the schemas the frames are made of, no machine.
    expect(bundled).toEqual(
      expect.arrayContaining(["gateway/client/foyer-client.ts", "gateway/protocol/codec.ts"]),
    );
    for (const source of bundled) {
      expect(source).toMatch(/^(gateway\/(client|protocol)|actors)\//);
      if (source.startsWith("actors/")) {
        expect(source).not.toMatch(/-(machine|kind|env|connection|membership|timers)\.ts$|\/index\.ts$/);
        // Modules the protocol's index imports pass through but whose exports it never uses: a bundle
        // that keeps them for their top-level schemas (esbuild does, unless told they are pure) ships
        // the actors' own messages and state.
        expect(source).not.toMatch(
          /\/(lobby-(messages|state|options)|queue-(state|options)|room-(create|upgrade|listing))\.ts$/,
        );
        expect(source).not.toMatch(
          /\/activity-(directory-\w+|lobby-messages|lobby-state|keys)\.ts$|\/lobby-status\.ts$/,
        );
      }
      if (source.startsWith("actors/runtime/"))
        expect(source).toMatch(/\/(error-codes|system-messages)\.ts$/);
    }
  });

  it("plays a join from plain Node against a node, through the installed package", async () => {
    const play = `
      import { createNodeClient } from "@foyer/client/node";
      import { isFoyerError } from "@foyer/client";
      const [url, aliceToken, bobToken] = process.argv.slice(2);
      const alice = createNodeClient({ urls: [url], token: aliceToken });
      const bob = createNodeClient({ urls: [url], token: bobToken });
      await alice.connect();
      await bob.connect();
      const both = new Promise((resolve) =>
        alice.on("lobby", (lobby) => lobby.members.length === 2 && resolve(lobby)),
      );
      const { code } = await alice.create();
      await bob.join(code.toLowerCase());
      const joined = await both;
      const refused = await bob.join("ZZZZZZ").catch((e) => (isFoyerError(e) ? e.code : "not a FoyerError"));
      console.log(JSON.stringify({ code, members: joined.members.map((m) => m.player), refused }));
      alice.close();
      bob.close();
    `;
    await writeFile(join(scratch, "play.mjs"), play);
    const { stdout } = await run(
      process.execPath,
      ["play.mjs", node!.url, tokenFor("alice"), tokenFor("bob")],
      {
        cwd: scratch,
      },
    );
    const result = JSON.parse(stdout.trim()) as { code: string; members: string[]; refused: string };
    expect(result.code).toMatch(/^[A-Z0-9]{6}$/);
    expect(result.members).toEqual(["alice", "bob"]);
    expect(result.refused).toBe("NOT_FOUND");
  });

  it("the browser module works on its own: a page's client creates a lobby", async () => {
    // Node stands in for the page: the module gets the WebSocket a browser would have.
    const page = `
      import WebSocket from "ws";
      import { FoyerClient, isFoyerError } from "@foyer/client/browser";
      const [url, token] = process.argv.slice(2);
      const client = new FoyerClient({ urls: [url], token, WebSocket });
      await client.connect();
      const { code } = await client.create();
      const refused = await client.join("ZZZZZZ").catch((e) => (isFoyerError(e) ? e.code : String(e)));
      console.log(JSON.stringify({ code, lobby: client.lobby?.code, refused }));
      client.close();
    `;
    await writeFile(join(scratch, "page.mjs"), page);
    const { stdout } = await run(process.execPath, ["page.mjs", node!.url, tokenFor("carol")], {
      cwd: scratch,
    });
    const result = JSON.parse(stdout.trim()) as { code: string; lobby: string; refused: string };
    expect(result.lobby).toBe(result.code);
    expect(result.refused).toBe("NOT_FOUND");
  });

  it("types a game's code: the right calls compile, a wrong one does not", async () => {
    const game = `
      import { FoyerClient, type LobbyView } from "@foyer/client";
      import { createNodeClient } from "@foyer/client/node";
      const client: FoyerClient = createNodeClient({ urls: ["ws://127.0.0.1:1/ws"], token: "t" });
      export async function firstLobby(): Promise<string> {
        const { code } = await client.create();
        const lobby: LobbyView | null = client.lobby;
        const list = await client.browse();
        // @ts-expect-error ready takes a boolean
        await client.ready("yes");
        return code + (lobby?.members.length ?? 0) + list.lobbies.map((line) => line.freeSeats).join();
      }
    `;
    await writeFile(join(scratch, "game.ts"), game);
    const tsconfig = {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM"],
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ["game.ts"],
    };
    await writeFile(join(scratch, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = join(repo, "node_modules/typescript/bin/tsc");
    const checked = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: scratch }).then(
      () => "compiled",
      (error: unknown) => (error as { stdout: string }).stdout,
    );
    expect(checked).toBe("compiled");
  }, 120_000);
});
