/** The pages' shared look: plain CSS, no framework. */
const style = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #0f1419; color: #d8dee6; }
  header { display: flex; gap: 1.5rem; align-items: baseline; padding: 0.8rem 1.2rem; background: #161d25; }
  header h1 { font-size: 1.1rem; margin: 0; }
  main { padding: 1rem 1.2rem; display: grid; gap: 1rem; grid-template-columns: 1fr 1fr; }
  section { background: #161d25; border-radius: 6px; padding: 0.6rem 0.9rem; }
  section.wide { grid-column: 1 / -1; }
  h2 { font-size: 0.95rem; margin: 0.2rem 0 0.6rem; color: #9fb3c8; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid #24303c; }
  th { color: #8193a5; font-weight: 500; }
  .num { text-align: right; font-variant-numeric: tabular-nums; }
  .state { padding: 0.05rem 0.45rem; border-radius: 3px; font-size: 0.85em; }
  .state.live { background: #1f5130; } .state.draining { background: #6a4d12; }
  .state.suspected { background: #5b3d12; } .state.dead, .state.left { background: #5d1f24; }
  .state.drained { background: #2d3e56; }
  .state.unknown { background: #333; }
  .tiles { display: flex; gap: 0.8rem; flex-wrap: wrap; }
  .tile { background: #1d2630; border-radius: 6px; padding: 0.4rem 0.8rem; min-width: 6rem; }
  .tile b { display: block; font-size: 1.5rem; }
  progress { width: 12rem; }
  ul { margin: 0; padding-left: 1.1rem; }
  button.lobby { background: none; border: 0; color: #7cc4ff; cursor: pointer; font: inherit; padding: 0; }
  .muted { color: #7d8b99; }
  input, button { font: inherit; }
`;

/** `GET /dashboard`: the operator's live view; `dashboard.js` fills it from `GET /cluster`. */
export const dashboardHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Foyer dashboard</title>
<style>${style}</style>
</head>
<body>
<header>
  <h1>Foyer</h1>
  <span>served by <b id="served-by">…</b></span>
  <span class="muted">updated <span id="updated">never</span></span>
  <form id="token-form" hidden>
    <label>Admin token <input id="token" type="password" autocomplete="off"></label>
    <button type="submit">Use</button>
  </form>
  <span id="error" class="muted"></span>
</header>
<main>
  <section class="wide">
    <div class="tiles">
      <div class="tile">nodes live<b id="nodes-live">0</b></div>
      <div class="tile">draining<b id="nodes-draining">0</b></div>
      <div class="tile">drained, dead or gone<b id="nodes-dead">0</b></div>
      <div class="tile">lobbies<b id="total-lobbies">0</b></div>
      <div class="tile">members<b id="total-members">0</b></div>
      <div class="tile">failovers<b id="failover-count">0</b></div>
    </div>
  </section>
  <section class="wide">
    <h2>Nodes</h2>
    <table>
      <thead><tr><th>node</th><th>state</th><th class="num">load</th><th class="num">lobbies</th>
      <th class="num">members</th><th class="num">sessions</th><th>version</th><th>url</th></tr></thead>
      <tbody id="nodes"></tbody>
    </table>
  </section>
  <section>
    <h2>Drains</h2>
    <div id="drains"><span class="muted">none</span></div>
  </section>
  <section>
    <h2>Failovers</h2>
    <ul id="failovers"></ul>
  </section>
  <section>
    <h2>Lobbies per node</h2>
    <div id="lobbies"></div>
  </section>
  <section>
    <h2>Lobby</h2>
    <div id="lobby-detail"><span class="muted">pick a lobby</span></div>
  </section>
</main>
<script type="module" src="/dashboard.js"></script>
</body>
</html>
`;

/** `GET /demo`: a player's page on the SDK's browser build; the node's URLs come in a JSON block. */
export function demoHtml(config: { urls: readonly string[] }): string {
  // `<` is escaped so a URL can never close the script element.
  const json = JSON.stringify(config).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Foyer demo</title>
<style>${style} main { display: block; max-width: 40rem; } section { margin-bottom: 1rem; }</style>
</head>
<body>
<header><h1>Foyer demo</h1><span id="status" class="muted">not connected</span></header>
<main>
  <section>
    <label>Name <input id="name" value="player"></label>
    <button id="connect">Connect</button>
  </section>
  <section>
    <button id="create" disabled>Create lobby</button>
    <label>Code <input id="code" size="8"></label>
    <button id="join" disabled>Join</button>
    <button id="ready" disabled>Ready</button>
    <label>Mode <input id="mode" value="duel" size="8"></label>
    <button id="start" disabled>Start</button>
  </section>
  <section>
    <h2>Lobby <span id="lobby-code"></span></h2>
    <div>host: <span id="lobby-host"></span> · epoch <span id="lobby-epoch"></span></div>
    <ul id="members"></ul>
    <div>room: <span id="room">none</span></div>
  </section>
  <section><h2>Log</h2><ul id="log"></ul></section>
</main>
<script type="application/json" id="foyer-config">${json}</script>
<script type="module" src="/demo.js"></script>
</body>
</html>
`;
}
