import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { dashboardHtml, demoHtml } from "./page-html.ts";

/** What a public page route answers. */
export interface PageAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A public route of the admin port: a page or its script, none of which carries cluster data. */
export type PageRoute = (url: URL) => Promise<PageAnswer>;

/** What the pages need to know about the node that serves them. */
export interface PageOptions {
  /** The public WebSocket URL players reach this node at (the demo's first URL). */
  readonly gameUrl: string;
  /** The game port's HTTP URL: the demo's dev token comes from its `GET /dev/token`. */
  readonly gameHttpUrl?: string;
}

const browserDir = new URL("./browser/", import.meta.url);

/** A page's script, bundled once per process (the first request pays for esbuild, ~100 ms). */
function bundled(entry: string): () => Promise<string> {
  let text: Promise<string> | undefined;
  return () => {
    text ??= build({
      entryPoints: [fileURLToPath(new URL(entry, browserDir))],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      minify: true,
      logLevel: "silent",
    }).then((result) => result.outputFiles[0]?.text ?? "");
    // A failed build is not cached: the next request tries again (and logs the error again).
    text.catch(() => {
      text = undefined;
    });
    return text;
  };
}

const html = (body: string): PageAnswer => ({ status: 200, contentType: "text/html; charset=utf-8", body });
const script = (body: string): PageAnswer => ({
  status: 200,
  contentType: "text/javascript; charset=utf-8",
  body,
});

/**
 * The dashboard (`/dashboard`, which reads `/cluster` with the admin token) and the player demo (`/demo`,
 * on the SDK's browser build). Both are public: they hold no data, and the data routes keep their token.
 */
export function dashboardPages(options: PageOptions): Readonly<Record<string, PageRoute>> {
  const dashboardJs = bundled("dashboard-page.ts");
  const demoJs = bundled("demo-page.ts");
  return {
    "/dashboard": () => Promise.resolve(html(dashboardHtml)),
    "/dashboard.js": async () => script(await dashboardJs()),
    "/demo": () => Promise.resolve(html(demoHtml({ urls: [options.gameUrl] }))),
    "/demo.js": async () => script(await demoJs()),
    "/demo/token": (url) => devToken(options.gameHttpUrl, url.searchParams.get("name") ?? "player"),
  };
}

/**
 * The game port's dev token, fetched for the demo page (which lives on another origin than the game
 * port). Only a node in dev mode issues one; otherwise the game port's 404 is passed on.
 */
async function devToken(gameHttpUrl: string | undefined, name: string): Promise<PageAnswer> {
  const json = (status: number, body: unknown): PageAnswer => ({
    status,
    contentType: "application/json",
    body: JSON.stringify(body),
  });
  if (gameHttpUrl === undefined) return json(404, { error: "this node has no game port to ask" });
  const url = new URL("/dev/token", gameHttpUrl);
  url.searchParams.set("name", name.slice(0, 32));
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) return json(res.status, { error: "this node issues no dev tokens (production mode)" });
  return json(200, await res.json());
}
