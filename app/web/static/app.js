// gridpath's map editor and path visualiser: plain JavaScript, no build step, no CDN.
//
// The map is drawn from two offscreen bitmaps of one pixel per cell (the map's colours, and
// an overlay for explored cells or a flow field), scaled onto the visible canvas with
// image smoothing off: crisp at any zoom, and a redraw costs two drawImage calls whatever the
// map's size (never a DOM element per cell). Paths, markers and arrows are drawn over them in
// screen space.
//
// Tests and scripts read the page's state from `window.gridpath` (see the README).
"use strict";

(() => {
  // ---- the API ---------------------------------------------------------------------------

  // `?api=https://host:8000/` points the page at another server (with CORS_ORIGINS set there).
  const API_BASE = new URLSearchParams(location.search).get("api") || "";
  const TOKEN_KEYS = { api: "gridpath.apiToken", admin: "gridpath.adminToken" };

  // What each error code means for the person at the screen; the server's own message follows.
  const PLAIN = {
    unauthorized: "The server refused the token (or none was given).",
    admin_disabled: "This server does not allow map changes: it has no ADMIN_TOKEN configured.",
    revision_conflict:
      "Someone changed this map on the server since you loaded it, so your edits were not saved.",
    stale_revision: "The map changed on the server since this was asked.",
    map_not_found: "That map is not on the server.",
    out_of_bounds: "A cell is outside the map.",
    start_blocked: "The start cell is blocked (or has no room for the unit's clearance).",
    goal_blocked: "The goal cell is blocked (or has no room for the unit's clearance).",
    algorithm_unsupported: "This algorithm cannot run with these options.",
    invalid_map_data: "The server could not read the map file.",
    payload_too_large: "The request is too large for the server.",
    not_ready: "The server is still starting; try again in a moment.",
    warming_up: "This algorithm's kernels are still compiling after start-up; retrying…",
    storage_error: "The server could not write the map file; nothing was changed.",
    batch_too_large: "Too many queries in one batch.",
    not_found: "The server has no such endpoint.",
    world_not_found: "That world is not on the server.",
    link_not_found: "The world has no such link (someone may have removed it).",
    invalid_world: "The server refused the world or the link.",
    unsupported_map_kind: "A world joins grid maps only.",
    method_not_allowed: "The server does not allow this request here.",
  };

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
    get plain() {
      let lead = PLAIN[this.code];
      if (!lead && this.code.startsWith("invalid_")) lead = "The server refused a value.";
      if (!lead) lead = "The request failed.";
      const where = this.status ? `${this.status} ${this.code}` : this.code;
      return `${lead} (${where}: ${this.message})`;
    }
  }

  let busy = 0;
  function setBusy(delta) {
    busy += delta;
    document.body.dataset.busy = String(busy);
  }

  // One call: JSON in and out, the token attached, errors as ApiError (never swallowed).
  async function api(method, path, { body, admin = false, contentType } = {}) {
    const headers = {};
    const token = admin
      ? sessionStorage.getItem(TOKEN_KEYS.admin)
      : sessionStorage.getItem(TOKEN_KEYS.api) || sessionStorage.getItem(TOKEN_KEYS.admin);
    if (token) headers.Authorization = `Bearer ${token}`;
    let payload;
    if (body instanceof Blob) {
      payload = body;
      headers["Content-Type"] = contentType || body.type || "application/octet-stream";
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["Content-Type"] = "application/json";
    }
    setBusy(1);
    try {
      let response;
      try {
        response = await fetch(API_BASE + path, { method, headers, body: payload });
      } catch (err) {
        throw new ApiError(0, "network_error", `cannot reach the server (${err.message})`);
      }
      const text = await response.text();
      let data = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch {
        data = null;
      }
      if (!response.ok) {
        const e = data && data.error;
        if (e && e.code) throw new ApiError(response.status, e.code, e.message);
        throw new ApiError(response.status, `http_${response.status}`, text.slice(0, 200));
      }
      const timing = /dur=([0-9.]+)/.exec(response.headers.get("server-timing") || "");
      return { data, status: response.status, searchMs: timing ? Number(timing[1]) : null };
    } finally {
      setBusy(-1);
    }
  }

  // ---- state -------------------------------------------------------------------------------

  const S = {
    maps: [],
    name: null,
    isNew: false,
    width: 0,
    height: 0,
    revision: null,
    terrain: [], // [{name, cost}] in class-index order
    cells: new Uint16Array(0), // 0 blocked, k >= 1 walkable of class k - 1
    zoom: 1,
    panX: 0,
    panY: 0,
    tool: "path",
    start: null,
    goal: null,
    results: { a: null, b: null }, // {request, response, searchMs}
    showB: false,
    flowGoal: null,
    flow: null, // {cost: Float64Array, next: Int8Array, directions, max, response}
    valPath: [],
    validation: null,
    undo: [],
    redo: [],
    firstDrawMs: null,
    loadStarted: null,
    lastError: null,
  };

  const $ = (id) => document.getElementById(id);
  const canvas = $("canvas");
  const ctx = canvas.getContext("2d");
  const base = document.createElement("canvas"); // one pixel per cell: the map's colours
  const overlay = document.createElement("canvas"); // explored heat map or flow field
  let baseCtx = base.getContext("2d");
  let overlayCtx = overlay.getContext("2d");
  let baseImage = null;
  let worlds = null; // worlds.js's hooks (a world's maps, links and paths), installed last
  let overlayKind = null;

  // ---- messages ----------------------------------------------------------------------------

  function showError(text, actions = []) {
    S.lastError = text;
    $("error-text").textContent = text;
    const box = $("error-actions");
    box.replaceChildren();
    for (const [label, action] of actions) {
      const b = document.createElement("button");
      b.textContent = label;
      b.addEventListener("click", () => {
        hideError();
        action();
      });
      box.append(b);
    }
    $("error").hidden = false;
  }
  function hideError() {
    $("error").hidden = true;
    S.lastError = null;
  }
  function status(text) {
    $("status-msg").textContent = text;
  }

  // An API error in plain words; a 401 asks for the token and retries.
  function report(err, retry, admin = false) {
    if (!(err instanceof ApiError)) {
      showError(`Something went wrong in the page: ${err.message}`);
      console.error(err);
      return;
    }
    if (err.code === "unauthorized" && retry) {
      const text = admin
        ? `The server refused the admin token: nothing was saved. (${err.status} ${err.code}: ${err.message})`
        : err.plain;
      showError(text, [["Enter token…", () => askTokens(text, retry, admin)]]);
      return;
    }
    showError(err.plain);
  }

  let tokenRetry = null;
  function askTokens(why, retry = null, admin = false) {
    $("token-why").textContent = why || "";
    $("api-token").value = sessionStorage.getItem(TOKEN_KEYS.api) || "";
    $("admin-token").value = sessionStorage.getItem(TOKEN_KEYS.admin) || "";
    tokenRetry = retry;
    $("token-form").hidden = false;
    (admin ? $("admin-token") : $("api-token")).focus();
  }
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    for (const [key, input] of [
      [TOKEN_KEYS.api, $("api-token")],
      [TOKEN_KEYS.admin, $("admin-token")],
    ]) {
      if (input.value) sessionStorage.setItem(key, input.value);
      else sessionStorage.removeItem(key);
    }
    $("token-form").hidden = true;
    hideError();
    const retry = tokenRetry;
    tokenRetry = null;
    if (retry) retry();
  });
  $("token-cancel").addEventListener("click", () => {
    $("token-form").hidden = true;
    tokenRetry = null;
  });
  $("tokens").addEventListener("click", () => askTokens(""));
  $("error-close").addEventListener("click", hideError);

  // ---- colours -----------------------------------------------------------------------------

  const BLOCKED_RGB = [34, 37, 43];
  const CLASS_RGB = [
    [224, 192, 128], [126, 190, 120], [120, 160, 220], [214, 130, 130], [178, 140, 214],
    [216, 196, 76], [104, 196, 190], [230, 150, 70], [150, 150, 150], [200, 110, 170],
  ];
  // ground near-white; every other class a hue of its own (grey_<v> classes too: two greys
  // of close levels would be hard to tell apart), in class-index order.
  function classRgb(index) {
    const tc = S.terrain[index];
    if (tc && tc.name === "ground") return [246, 246, 240];
    const k = S.terrain.slice(0, index).filter((c) => c.name !== "ground").length;
    if (k < CLASS_RGB.length) return CLASS_RGB[k];
    const hue = (k * 137.508) % 360; // golden angle: distinct hues for many classes
    return hslToRgb(hue / 360, 0.55, 0.62);
  }
  function hslToRgb(h, s, l) {
    const f = (n) => {
      const k = (n + h * 12) % 12;
      return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
    };
    return [f(0), f(8), f(4)];
  }
  const css = ([r, g, b]) => `rgb(${r},${g},${b})`;

  // Expansion order as colour: early yellow, through orange and red, to late purple.
  const HEAT = [[255, 236, 80], [250, 150, 40], [222, 60, 80], [112, 40, 160]];
  function heat(t) {
    const x = t * (HEAT.length - 1);
    const i = Math.min(HEAT.length - 2, Math.floor(x));
    const f = x - i;
    return HEAT[i].map((c, k) => Math.round(c + (HEAT[i + 1][k] - c) * f));
  }

  // ---- the bitmaps -------------------------------------------------------------------------

  function cellRgb(v) {
    return v === 0 ? BLOCKED_RGB : classRgb(v - 1);
  }

  function rebuildBase() {
    base.width = S.width;
    base.height = S.height;
    baseCtx = base.getContext("2d");
    baseImage = baseCtx.createImageData(S.width, S.height);
    const px = baseImage.data;
    const lut = [];
    for (let v = 0; v <= S.terrain.length; v++) lut.push(cellRgb(v));
    const cells = S.cells;
    for (let i = 0, n = cells.length; i < n; i++) {
      const c = lut[cells[i]] || BLOCKED_RGB;
      const o = i * 4;
      px[o] = c[0];
      px[o + 1] = c[1];
      px[o + 2] = c[2];
      px[o + 3] = 255;
    }
    baseCtx.putImageData(baseImage, 0, 0);
  }

  function updateBaseCells(indices) {
    if (!indices.length) return;
    let x0 = S.width, y0 = S.height, x1 = -1, y1 = -1;
    const px = baseImage.data;
    for (const i of indices) {
      const c = cellRgb(S.cells[i]);
      const o = i * 4;
      px[o] = c[0];
      px[o + 1] = c[1];
      px[o + 2] = c[2];
      const x = i % S.width, y = (i - x) / S.width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    baseCtx.putImageData(baseImage, 0, 0, x0, y0, x1 - x0 + 1, y1 - y0 + 1);
  }

  function shownResult() {
    return S.showB && S.results.b ? S.results.b : S.results.a;
  }

  function rebuildOverlay() {
    overlayKind = null;
    let fill = null;
    if (S.tool === "flow" && S.flow) {
      const { cost, max } = S.flow;
      fill = (px) => {
        for (let i = 0; i < cost.length; i++) {
          if (S.cells[i] === 0) continue;
          const o = i * 4;
          if (cost[i] < 0) {
            px[o] = 110; // walkable but cannot reach the goal
          } else {
            const near = 1 - cost[i] / max;
            px[o] = 40 + 215 * near * near;
            px[o + 1] = 60 + 195 * near;
            px[o + 2] = 255;
          }
          px[o + 3] = 200;
        }
      };
      overlayKind = "flow";
    } else if (S.tool !== "flow" && shownResult() && shownResult().response) {
      const explored = shownResult().response.explored;
      if (explored && explored.length) {
        fill = (px) => {
          const n = explored.length;
          for (let k = 0; k < n; k++) {
            const [x, y] = explored[k];
            const o = (y * S.width + x) * 4;
            const c = heat(n > 1 ? k / (n - 1) : 0);
            px[o] = c[0];
            px[o + 1] = c[1];
            px[o + 2] = c[2];
            px[o + 3] = 165;
          }
        };
        overlayKind = "explored";
      }
    }
    if (!fill) return;
    overlay.width = S.width;
    overlay.height = S.height;
    overlayCtx = overlay.getContext("2d");
    const image = overlayCtx.createImageData(S.width, S.height);
    fill(image.data);
    overlayCtx.putImageData(image, 0, 0);
  }

  // ---- view --------------------------------------------------------------------------------

  let drawPending = false;
  function requestDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      draw();
    });
  }

  function resizeCanvas() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
  }

  function fitView() {
    if (!S.width) return;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    S.zoom = Math.max(0.05, Math.min(w / S.width, h / S.height) * 0.96);
    S.panX = (w - S.width * S.zoom) / 2;
    S.panY = (h - S.height * S.zoom) / 2;
    showZoom();
    requestDraw();
  }

  function showZoom() {
    $("status-zoom").textContent = `cell ${S.zoom.toFixed(S.zoom < 2 ? 2 : 1)} px`;
  }

  const centre = ([x, y]) => [S.panX + (x + 0.5) * S.zoom, S.panY + (y + 0.5) * S.zoom];

  function draw() {
    resizeCanvas();
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#30343b";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (!S.width) return;
    ctx.imageSmoothingEnabled = false;
    const z = S.zoom * dpr;
    ctx.setTransform(z, 0, 0, z, S.panX * dpr, S.panY * dpr);
    ctx.drawImage(base, 0, 0);
    if (overlayKind) ctx.drawImage(overlay, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0); // CSS pixels from here on
    drawGridLines();
    if (S.tool === "flow") drawFlowArrows();
    if (S.tool === "group") drawGroup();
    else if (S.tool === "validate") drawValidation();
    else if (S.tool !== "flow") drawPaths();
    if (S.tool === "flow" && S.flowGoal) drawMarker(S.flowGoal, "#d62828", "G");
    if (worlds) worlds.draw();
    if (rectDrag) drawRectPreview();
    if (S.loadStarted !== null) {
      ctx.getImageData(0, 0, 1, 1); // wait for the pixels, so the time is the real draw
      S.firstDrawMs = performance.now() - S.loadStarted;
      S.loadStarted = null;
      document.body.dataset.firstDrawMs = S.firstDrawMs.toFixed(1);
      status(`drawn in ${S.firstDrawMs.toFixed(0)} ms`);
    }
  }

  function visibleCells() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    return [
      Math.max(0, Math.floor(-S.panX / S.zoom)),
      Math.max(0, Math.floor(-S.panY / S.zoom)),
      Math.min(S.width - 1, Math.floor((w - S.panX) / S.zoom)),
      Math.min(S.height - 1, Math.floor((h - S.panY) / S.zoom)),
    ];
  }

  function drawGridLines() {
    if (S.zoom < 10) return;
    const [x0, y0, x1, y1] = visibleCells();
    ctx.strokeStyle = "rgba(0,0,0,0.12)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = x0; x <= x1 + 1; x++) {
      const sx = Math.round(S.panX + x * S.zoom) + 0.5;
      ctx.moveTo(sx, S.panY + y0 * S.zoom);
      ctx.lineTo(sx, S.panY + (y1 + 1) * S.zoom);
    }
    for (let y = y0; y <= y1 + 1; y++) {
      const sy = Math.round(S.panY + y * S.zoom) + 0.5;
      ctx.moveTo(S.panX + x0 * S.zoom, sy);
      ctx.lineTo(S.panX + (x1 + 1) * S.zoom, sy);
    }
    ctx.stroke();
  }

  function polyline(cells, colour, width, dash = []) {
    if (!cells || cells.length < 1) return;
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    ctx.setLineDash(dash);
    ctx.beginPath();
    cells.forEach((c, i) => {
      const [sx, sy] = centre(c);
      if (i === 0) ctx.moveTo(sx, sy);
      else ctx.lineTo(sx, sy);
    });
    if (cells.length === 1) {
      const [sx, sy] = centre(cells[0]);
      ctx.lineTo(sx + 0.01, sy);
    }
    ctx.stroke();
    ctx.restore();
  }

  function dots(cells, colour, radius) {
    ctx.fillStyle = colour;
    for (const c of cells || []) {
      const [sx, sy] = centre(c);
      ctx.beginPath();
      ctx.arc(sx, sy, radius, 0, 2 * Math.PI);
      ctx.fill();
    }
  }

  function drawMarker(cell, colour, label) {
    const [sx, sy] = centre(cell);
    const r = Math.max(6, Math.min(S.zoom * 0.6, 14));
    ctx.fillStyle = colour;
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(sx, sy, r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
    ctx.fillStyle = "#fff";
    ctx.font = `bold ${Math.round(r * 1.1)}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(label, sx, sy + 0.5);
  }

  function drawPaths() {
    const line = Math.max(1.5, Math.min(S.zoom * 0.35, 5));
    const { a, b } = S.results;
    if (b && b.response && b.response.path) {
      polyline(b.response.path, "#1b8f44", line, [line * 2, line * 1.5]);
    }
    if (a && a.response && a.response.path) {
      polyline(a.response.path, "#e0282e", line);
    }
    const shown = shownResult();
    if (shown && shown.response && shown.response.waypoints) {
      polyline(shown.response.waypoints, "rgba(30,90,230,0.85)", Math.max(1, line / 2));
      dots(shown.response.waypoints, "#1e5ae6", Math.max(2.5, line * 0.9));
    }
    if (S.start) drawMarker(S.start, "#138a3d", "S");
    if (S.goal) drawMarker(S.goal, "#d62828", "G");
  }

  function drawFlowArrows() {
    if (!S.flow || S.zoom < 8) return;
    const [x0, y0, x1, y1] = visibleCells();
    const { next, vectors } = S.flow;
    const len = S.zoom * 0.36;
    ctx.strokeStyle = "rgba(10,20,40,0.8)";
    ctx.fillStyle = "rgba(10,20,40,0.8)";
    ctx.lineWidth = Math.max(1, S.zoom / 16);
    ctx.beginPath();
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const d = next[y * S.width + x];
        if (d < 0) continue;
        const [dx, dy] = vectors[d];
        const n = Math.hypot(dx, dy);
        const [cx, cy] = centre([x, y]);
        const ux = (dx / n) * len, uy = (dy / n) * len;
        ctx.moveTo(cx - ux, cy - uy);
        ctx.lineTo(cx + ux, cy + uy);
        // the head: two short strokes back from the tip
        ctx.moveTo(cx + ux, cy + uy);
        ctx.lineTo(cx + ux * 0.35 - uy * 0.45, cy + uy * 0.35 + ux * 0.45);
        ctx.moveTo(cx + ux, cy + uy);
        ctx.lineTo(cx + ux * 0.35 + uy * 0.45, cy + uy * 0.35 - ux * 0.45);
      }
    }
    ctx.stroke();
  }

  // A violation: a red cross over the cell.
  function drawCross(cell) {
    const r = Math.max(5, Math.min(S.zoom * 0.5, 12));
    const [sx, sy] = centre(cell);
    ctx.strokeStyle = "#ff1744";
    ctx.lineWidth = 3;
    ctx.beginPath();
    ctx.moveTo(sx - r, sy - r);
    ctx.lineTo(sx + r, sy + r);
    ctx.moveTo(sx + r, sy - r);
    ctx.lineTo(sx - r, sy + r);
    ctx.stroke();
  }

  function drawValidation() {
    const line = Math.max(1.5, Math.min(S.zoom * 0.3, 4));
    polyline(S.valPath, "#7b2fbe", line);
    dots(S.valPath, "#7b2fbe", Math.max(2, line));
    const v = S.validation;
    if (!v || !v.response) return;
    for (const violation of v.response.violations) {
      const cell = v.request.path[violation.index];
      if (!cell) continue;
      drawCross(cell);
    }
  }

  // ---- Group (POST /group): starts, goals, a plan played tick by tick ----
  const G = { starts: [], goals: [], plan: null, tick: 0, timer: null, violations: [] };

  function groupClick(cell) {
    const list = $("group-phase-goals").checked ? G.goals : G.starts;
    const at = list.findIndex(([x, y]) => x === cell[0] && y === cell[1]);
    if (at >= 0) list.splice(at, 1);
    else list.push(cell);
    G.plan = null;
    G.violations = [];
    groupInfo(`${G.starts.length} starts, ${G.goals.length} goals`);
  }

  function groupInfo(text) {
    $("group-info").textContent = text;
    $("group-tick").max = G.plan ? G.plan.makespan : 0;
    $("group-tick").value = G.tick;
    $("group-tick-label").textContent = `tick ${G.tick}`;
    $("group-violations").replaceChildren(...G.violations.map((v) => {
      const li = document.createElement("li");
      li.textContent = `unit ${v.unit}, tick ${v.tick}: ${v.code} (${v.message})`;
      return li;
    }));
    document.body.dataset.groupTick = String(G.tick);
    requestDraw();
  }

  async function runGroup() {
    if (!S.name) return;
    const units = G.starts.map((s, i) => ({ start: s, goal: G.goals[i] }));
    const body = { map: S.name, units, assign: $("group-assign").checked,
                   connectivity: Number($("group-connectivity").value) };
    try {
      const { data } = await api("POST", "/group", { body });
      G.plan = data.found ? data : null;
      G.tick = 0;
      G.violations = [];
      groupInfo(data.found
        ? `${units.length} units: makespan ${data.makespan}, sum of costs ${data.sum_of_costs} (alone: ${data.lower_bound})`
        : `no plan: ${data.reason}${data.unreachable_units.length ? " (units " + data.unreachable_units.join(", ") + ")" : ""}`);
    } catch (err) {
      showError(err.message);
    }
  }

  async function validateGroup() {
    if (!G.plan) return;
    const body = { map: S.name, plans: G.plan.plans, connectivity: Number($("group-connectivity").value) };
    try {
      const { data } = await api("POST", "/validate", { body });
      G.violations = data.violations;
      groupInfo(data.valid ? "valid: no conflict" : `${data.violations.length} violations`);
    } catch (err) {
      showError(err.message);
    }
  }

  function groupPlay() {
    if (G.timer) {
      clearInterval(G.timer);
      G.timer = null;
      $("group-play").textContent = "Play";
      return;
    }
    if (!G.plan) return;
    if (G.tick >= G.plan.makespan) G.tick = 0;
    $("group-play").textContent = "Pause";
    G.timer = setInterval(() => {
      G.tick += 1;
      if (G.tick >= G.plan.makespan) groupPlay();
      groupInfo($("group-info").textContent);
    }, 300);
  }

  function drawGroup() {
    const goalsShown = G.plan && G.plan.goal_index ? G.plan.goal_index.map((k) => G.goals[k]) : G.goals;
    goalsShown.forEach((g, i) => g && drawMarker(g, "rgba(214,40,40,0.55)", String(i)));
    if (!G.plan) {
      G.starts.forEach((s, i) => drawMarker(s, "#138a3d", String(i)));
      return;
    }
    G.plan.plans.forEach((p, i) => {
      polyline(p, "rgba(30,90,230,0.25)", 1.5);
      drawMarker(p[Math.min(G.tick, p.length - 1)], "#1e5ae6", String(i));
    });
    for (const v of G.violations) {
      const cell = v.unit >= 0 && G.plan.plans[v.unit] && G.plan.plans[v.unit][v.tick];
      if (!cell) continue;
      drawCross(cell);
    }
  }

  function drawRectPreview() {
    const [x0, y0, x1, y1] = rectBounds();
    ctx.strokeStyle = "#ff9800";
    ctx.lineWidth = 2;
    ctx.setLineDash([5, 4]);
    ctx.strokeRect(S.panX + x0 * S.zoom, S.panY + y0 * S.zoom, (x1 - x0 + 1) * S.zoom, (y1 - y0 + 1) * S.zoom);
    ctx.setLineDash([]);
  }

  // ---- maps --------------------------------------------------------------------------------

  function decodeBase64(text) {
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  // Little-endian arrays (x86 and ARM browsers are): Float64Array etc. read them directly.
  function decodeArray(encoded) {
    const bytes = decodeBase64(encoded.data);
    const kind = encoded.dtype.slice(1);
    const Type = { u1: Uint8Array, i1: Int8Array, u2: Uint16Array, f8: Float64Array }[kind];
    if (!Type) throw new Error(`unexpected dtype ${encoded.dtype}`);
    return new Type(bytes.buffer, 0, bytes.length / Type.BYTES_PER_ELEMENT);
  }

  async function loadMapList(select) {
    try {
      const { data } = await api("GET", "maps");
      // The page draws and edits grids; polygon maps are served through the API only.
      S.maps = data.maps.filter((m) => (m.kind || "grid") === "grid");
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_ready") {
        status("The server is still loading its maps…");
        setTimeout(() => loadMapList(select), 1000);
        return;
      }
      report(err, () => loadMapList(select));
      return;
    }
    const sel = $("map-select");
    sel.replaceChildren();
    for (const m of S.maps) {
      const o = document.createElement("option");
      o.value = m.name;
      o.textContent = `${m.name} (${m.width}×${m.height})`;
      sel.append(o);
    }
    if (S.isNew) {
      const o = document.createElement("option");
      o.value = S.name;
      o.textContent = `${S.name} (new, not saved)`;
      sel.append(o);
    }
    const want = select || S.name || new URLSearchParams(location.hash.slice(1)).get("map");
    const pick = S.maps.find((m) => m.name === want) || S.maps[0];
    if (S.isNew) sel.value = S.name;
    else if (pick) {
      sel.value = pick.name;
      if (pick.name !== S.name || select) await loadMap(pick.name);
    } else status("The server has no maps loaded: make a new one.");
    if (worlds) worlds.init(); // the worlds once the maps are listed (and the token accepted)
  }

  async function loadMap(name) {
    const started = performance.now();
    let data;
    try {
      ({ data } = await api("GET", `maps/${encodeURIComponent(name)}/cells`));
    } catch (err) {
      report(err, () => loadMap(name));
      return;
    }
    const raw = decodeArray(data.cells);
    const sameMap = S.name === name && S.width === data.width && S.height === data.height;
    Object.assign(S, {
      name: data.map,
      isNew: false,
      width: data.width,
      height: data.height,
      revision: data.revision,
      terrain: data.terrain,
      cells: Uint16Array.from(raw),
      undo: [],
      redo: [],
      loadStarted: started,
      firstDrawMs: null,
    });
    if (!sameMap) {
      Object.assign(S, { start: null, goal: null, flowGoal: null, valPath: [] });
      S.results = { a: null, b: null };
      S.flow = null;
      S.validation = null;
      $("val-path").value = "";
    }
    history.replaceState(null, "", `#map=${encodeURIComponent(name)}`);
    rebuildBase();
    afterMapChange();
    if (!sameMap) fitView();
    if (sameMap && S.start && S.goal) runPath();
    else rebuildOverlay();
    if (worlds) worlds.mapShown();
    requestDraw();
  }

  function afterMapChange() {
    document.body.dataset.map = S.name || "";
    document.body.dataset.revision = S.revision === null ? "" : String(S.revision);
    const rev = S.isNew ? "new, not saved" : `revision ${S.revision}`;
    $("map-info").textContent = `${S.width}×${S.height} · ${rev}`;
    renderLegend();
    renderTerrainControls();
    showPending();
  }

  function renderLegend() {
    const ul = $("legend");
    ul.replaceChildren();
    const counts = new Uint32Array(S.terrain.length + 1);
    for (let i = 0; i < S.cells.length; i++) counts[S.cells[i]]++;
    const item = (rgb, text) => {
      const li = document.createElement("li");
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = css(rgb);
      li.append(sw, document.createTextNode(text));
      ul.append(li);
    };
    S.terrain.forEach((tc, i) => {
      item(classRgb(i), `${tc.name} — cost ${tc.cost} (${counts[i + 1].toLocaleString()} cells)`);
    });
    item(BLOCKED_RGB, `blocked (${counts[0].toLocaleString()} cells)`);
    const swatchOf = (rgb) => `<span class="swatch" style="background:${css(rgb)}"></span>`;
    const heatItem = document.createElement("li");
    heatItem.innerHTML = `${swatchOf(heat(0))}${swatchOf(heat(1))} explored: first → last expanded`;
    ul.append(heatItem);
    const lines = document.createElement("li");
    lines.innerHTML =
      `${swatchOf([224, 40, 46])} path ${swatchOf([27, 143, 68])} compared ` +
      `${swatchOf([30, 90, 230])} waypoints`;
    ul.append(lines);
  }

  function renderTerrainControls() {
    const tools = $("terrain-tools");
    tools.replaceChildren();
    S.terrain.forEach((tc, i) => {
      const b = document.createElement("button");
      b.dataset.tool = `terrain:${i}`;
      b.title = `Paint ${tc.name} (cost ${tc.cost})`;
      b.innerHTML = `<span class="swatch" style="background:${css(classRgb(i))}"></span>`;
      b.append(document.createTextNode(tc.name));
      if (S.tool === b.dataset.tool) b.classList.add("active");
      tools.append(b);
    });
    const box = $("terrain-costs");
    const kept = {};
    for (const input of box.querySelectorAll("input")) if (input.value) kept[input.dataset.terrain] = input.value;
    box.querySelectorAll("label").forEach((l) => l.remove());
    for (const tc of S.terrain) {
      const label = document.createElement("label");
      label.textContent = tc.name;
      const input = document.createElement("input");
      Object.assign(input, { type: "number", min: "0", step: "0.5", placeholder: String(tc.cost) });
      input.dataset.terrain = tc.name;
      input.value = kept[tc.name] || "";
      input.addEventListener("change", optionsChanged);
      label.append(input);
      box.append(label);
    }
  }

  // ---- editing -----------------------------------------------------------------------------

  function classForCost(cost) {
    let index = S.terrain.findIndex((tc) => tc.cost === cost);
    if (index < 0) {
      S.terrain.push({ name: `cost_${cost}`, cost }); // what the server names a new class
      index = S.terrain.length - 1;
    }
    return index;
  }

  // The cell value an edit leaves (the server's rules in gridpath/grid/edits.py).
  function editedValue(value, current) {
    if (value === "blocked") return 0;
    if (value === "walkable") return current === 0 ? 1 : current;
    return classForCost(value) + 1;
  }

  function toolValue(tool) {
    if (tool === "blocked" || tool === "walkable") return tool;
    if (tool.startsWith("terrain:")) return S.terrain[Number(tool.slice(8))].cost;
    return null;
  }

  let stroke = null; // {value, changed: Map(index -> previous), last: [x, y], classes}
  let rectDrag = null; // {value, from: [x, y], to: [x, y], classes}

  function paintCell(x, y) {
    const brush = Number($("brush").value);
    const half = Math.floor(brush / 2);
    const touched = [];
    for (let yy = y - half; yy <= y + half; yy++) {
      for (let xx = x - half; xx <= x + half; xx++) {
        if (xx < 0 || yy < 0 || xx >= S.width || yy >= S.height) continue;
        const i = yy * S.width + xx;
        const next = editedValue(stroke.value, S.cells[i]);
        if (S.cells[i] !== next) {
          // only cells the stroke changes become part of the edit (and of the PATCH)
          if (!stroke.changed.has(i)) stroke.changed.set(i, S.cells[i]);
          S.cells[i] = next;
          touched.push(i);
        }
      }
    }
    updateBaseCells(touched);
  }

  function paintLine([x0, y0], [x1, y1]) {
    // Bresenham, so a fast drag leaves no gaps
    const dx = Math.abs(x1 - x0), dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    let err = dx + dy;
    for (;;) {
      paintCell(x0, y0);
      if (x0 === x1 && y0 === y1) break;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }

  function finishStroke() {
    const indices = [...stroke.changed.keys()];
    if (indices.length) {
      pushEdit({
        value: stroke.value,
        indices,
        before: indices.map((i) => stroke.changed.get(i)),
        after: indices.map((i) => S.cells[i]),
        classes: stroke.classes,
        cells: indices.map((i) => [i % S.width, Math.floor(i / S.width)]),
      });
    }
    stroke = null;
  }

  function rectBounds() {
    const [ax, ay] = rectDrag.from, [bx, by] = rectDrag.to;
    return [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
  }

  function finishRect() {
    const [x0, y0, x1, y1] = rectBounds();
    const indices = [], before = [], after = [];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * S.width + x;
        indices.push(i);
        before.push(S.cells[i]);
        S.cells[i] = editedValue(rectDrag.value, S.cells[i]);
        after.push(S.cells[i]);
      }
    }
    updateBaseCells(indices);
    pushEdit({ value: rectDrag.value, indices, before, after, classes: rectDrag.classes, rect: [x0, y0, x1, y1] });
    rectDrag = null;
  }

  function pushEdit(edit) {
    S.undo.push(edit);
    S.redo = [];
    editsChanged();
  }

  function undo() {
    const edit = S.undo.pop();
    if (!edit) return;
    edit.indices.forEach((i, k) => (S.cells[i] = edit.before[k]));
    S.terrain.length = edit.classes; // drop a class the edit added
    S.redo.push(edit);
    updateBaseCells(edit.indices);
    editsChanged();
  }

  function redo() {
    const edit = S.redo.pop();
    if (!edit) return;
    editedValue(edit.value, 1); // re-adds the class the edit made, if it made one
    edit.indices.forEach((i, k) => (S.cells[i] = edit.after[k]));
    S.undo.push(edit);
    updateBaseCells(edit.indices);
    editsChanged();
  }

  function editsChanged() {
    renderLegend();
    renderTerrainControls();
    showPending();
    requestDraw();
  }

  function showPending() {
    const n = S.undo.length;
    $("pending").textContent = n ? `${n} unsaved edit${n === 1 ? "" : "s"}` : "";
    $("undo").disabled = !n;
    $("redo").disabled = !S.redo.length;
    document.body.dataset.pending = String(n);
  }

  // ---- saving and downloads ----------------------------------------------------------------

  function ensureAdmin(retry) {
    if (sessionStorage.getItem(TOKEN_KEYS.admin)) return true;
    askTokens("Saving changes the map on the server: it needs the admin token (ADMIN_TOKEN).", retry, true);
    return false;
  }

  async function save() {
    if (!S.name) return;
    if (!S.isNew && !S.undo.length) {
      status("Nothing to save.");
      return;
    }
    if (!ensureAdmin(save)) return;
    const path = `maps/${encodeURIComponent(S.name)}`;
    try {
      let info;
      if (S.isNew) {
        ({ data: info } = await api("PUT", path, { body: await pngBlob(), admin: true, contentType: "image/png" }));
      } else {
        const set = S.undo.map((e) =>
          e.rect ? { rect: e.rect, value: e.value } : { cells: e.cells, value: e.value },
        );
        ({ data: info } = await api("PATCH", path, { body: { set, if_revision: S.revision }, admin: true }));
      }
      hideError();
      status(`Saved: ${info.name} is at revision ${info.revision}.`);
      S.isNew = false;
      await loadMapList(info.name);
    } catch (err) {
      if (err instanceof ApiError && err.code === "revision_conflict") {
        showError(err.plain, [
          ["Reload the map (drops your edits)", () => loadMap(S.name)],
          ["Keep my edits", () => {}],
        ]);
      } else {
        report(err, save, true);
      }
    }
  }

  // The service's bitmap format: 8-bit grey, 255 walkable, 0 blocked, and a terrain cost c as
  // the grey level the loader reads back as that cost (255 - 32 (c - 1), from 128 to 254).
  function greyLevels() {
    const lut = [0];
    for (const tc of S.terrain) lut.push(Math.max(128, Math.min(255, Math.round(255 - 32 * (tc.cost - 1)))));
    return lut;
  }

  function pngBlob() {
    const c = document.createElement("canvas");
    c.width = S.width;
    c.height = S.height;
    const cx = c.getContext("2d");
    const image = cx.createImageData(S.width, S.height);
    const lut = greyLevels();
    const px = image.data;
    for (let i = 0; i < S.cells.length; i++) {
      const v = lut[S.cells[i]];
      px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = v;
      px[i * 4 + 3] = 255;
    }
    cx.putImageData(image, 0, 0);
    return new Promise((resolve) => c.toBlob(resolve, "image/png"));
  }

  function movingAiText() {
    const rows = [`type octile`, `height ${S.height}`, `width ${S.width}`, `map`];
    const chars = ["@", ...S.terrain.map((tc) => (tc.name === "swamp" ? "S" : "."))];
    for (let y = 0; y < S.height; y++) {
      let row = "";
      for (let x = 0; x < S.width; x++) row += chars[S.cells[y * S.width + x]];
      rows.push(row);
    }
    return rows.join("\n") + "\n";
  }

  function download(blob, filename) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  // ---- searches ----------------------------------------------------------------------------

  function movementRules() {
    const rules = {
      connectivity: Number($("opt-connectivity").value),
      cost_model: $("opt-cost_model").value,
      clearance: Number($("opt-clearance").value),
    };
    if (rules.connectivity === 8) rules.diagonal = $("opt-diagonal").value;
    const costs = {};
    for (const input of $("terrain-costs").querySelectorAll("input")) {
      if (input.value !== "") costs[input.dataset.terrain] = Number(input.value);
    }
    if (Object.keys(costs).length) rules.terrain_costs = costs;
    return rules;
  }

  // The algorithms whose searches list their explored cells (the general runner's); JPS, the
  // subgoal tier and Lazy Theta* list none. Any other (auto, subgoal) is asked without them,
  // so the page runs what the API runs; when it ran one of these, a second request asks that
  // algorithm for its explored cells.
  const EXPLORES = new Set(["astar", "dijkstra", "bfs", "greedy"]);

  function pathRequest(algorithm) {
    return { map: S.name, start: S.start, goal: S.goal, ...searchOptions(algorithm) };
  }

  // Every option of the Search options panel, as /path takes them (a world's path too).
  function searchOptions(algorithm) {
    const body = { algorithm, ...movementRules() };
    const heuristic = $("opt-heuristic").value;
    if (heuristic) body.heuristic = heuristic;
    body.heuristic_weight = Number($("opt-heuristic_weight").value);
    body.turn_penalty = Number($("opt-turn_penalty").value);
    body.smooth = $("opt-smooth").checked;
    body.include = ["path", "waypoints"];
    if ($("opt-explored").checked && EXPLORES.has(algorithm)) body.include.push("explored");
    return body;
  }

  async function searchPath(algorithm) {
    const request = pathRequest(algorithm);
    const { data, searchMs } = await api("POST", "path", { body: request });
    if ($("opt-explored").checked && !EXPLORES.has(algorithm) && EXPLORES.has(data.algorithm)) {
      data.explored = (await api("POST", "path", { body: pathRequest(data.algorithm) })).data.explored;
    }
    return { request, response: data, searchMs };
  }

  // The algorithm menus list every algorithm of the server's registry (the request schema's
  // enum); the options in index.html stand until the document answers.
  async function loadAlgorithms() {
    let names;
    try {
      const doc = await (await fetch(API_BASE + "openapi.json")).json();
      names = doc.components.schemas.Algorithm.enum;
    } catch {
      return;
    }
    for (const [id, blank] of [["opt-algorithm", false], ["opt-compare", true]]) {
      const sel = $(id);
      const chosen = sel.value;
      sel.replaceChildren();
      if (blank) sel.append(new Option("(none)", ""));
      for (const name of names) sel.append(new Option(name, name));
      sel.value = chosen;
    }
  }

  let pathSeq = 0;
  async function runPath() {
    if (!S.start || !S.goal || !S.name) return;
    if (S.isNew) {
      showError("This map is not on the server yet: Save it first, then search it.");
      return;
    }
    const seq = ++pathSeq;
    const algorithms = { a: $("opt-algorithm").value, b: $("opt-compare").value };
    const results = { a: null, b: null };
    const errors = [];
    await Promise.all(
      Object.entries(algorithms).map(async ([slot, algorithm]) => {
        if (!algorithm) return;
        try {
          results[slot] = await searchPath(algorithm);
        } catch (err) {
          results[slot] = { request: pathRequest(algorithm), error: err };
          errors.push(err);
        }
      }),
    );
    if (seq !== pathSeq) return; // a newer query superseded this one
    S.results = results;
    if (!results.b) S.showB = false;
    if (errors.length && errors.every((e) => e.code === "warming_up")) {
      status(PLAIN.warming_up); // a first start: the answer comes once they are compiled
      setTimeout(() => seq === pathSeq && runPath(), 2000);
    } else if (errors.length) {
      report(errors[0], runPath);
      status("");
    } else {
      hideError();
      const r = results.a.response;
      const walked = r.waypoints_cost == null ? "" : `, waypoints cost ${Number(r.waypoints_cost.toFixed(6))}`;
      status(r.found ? `path found: cost ${Number(r.cost.toFixed(6))}${walked}, ${r.path.length} cells` : `no path: ${r.reason}`);
    }
    renderFigures();
    rebuildOverlay();
    requestDraw();
  }

  const FIGURES = [
    ["algorithm ran", (r) => r.algorithm],
    ["found", (r) => (r.found ? "yes" : `no (${r.reason})`)],
    ["cost", (r) => (r.cost === null ? "—" : Number(r.cost.toFixed(6)))],
    // What walking the drawn waypoints costs: never more than cost (issue 20).
    ["waypoints_cost", (r) => (r.waypoints_cost == null ? "—" : Number(r.waypoints_cost.toFixed(6)))],
    ["path cells", (r) => (r.path ? r.path.length : "—")],
    ["waypoints", (r) => (r.waypoints ? r.waypoints.length : "—")],
    ["turns", (r) => r.turns],
    ["expanded", (r) => r.expanded],
    ["explored shown", (r) => (r.explored ? r.explored.length : "—")],
    ["optimal", (r) => (r.optimal ? "yes" : r.bounded_suboptimal ? "bounded" : "no")],
  ];

  function renderFigures() {
    const body = $("figures").querySelector("tbody");
    body.replaceChildren();
    const { a, b } = S.results;
    $("fig-head-a").textContent = a ? a.request.algorithm : "A";
    $("fig-head-b").textContent = b ? b.request.algorithm : "";
    const cell = (result, fn, cls) => {
      const td = document.createElement("td");
      td.className = cls;
      if (result && result.response) td.textContent = String(fn(result.response));
      else if (result && result.error) td.textContent = result.error.code;
      return td;
    };
    const rows = [...FIGURES, ["search time (ms)", null]];
    for (const [label, fn] of rows) {
      const tr = document.createElement("tr");
      const th = document.createElement("td");
      th.textContent = label;
      tr.append(th);
      for (const [slot, result] of [["a", a], ["b", b]]) {
        const td = fn
          ? cell(result, fn, slot)
          : cell(result, () => (result.searchMs === null ? "—" : result.searchMs.toFixed(3)), slot);
        td.dataset.figure = label.split(" ")[0];
        td.dataset.slot = slot;
        tr.append(td);
      }
      body.append(tr);
    }
    $("toggle-compare").disabled = !b;
    $("toggle-compare").textContent = S.showB ? "Show A's explored" : "Show B's explored";
    const notes = [];
    if (a && a.response && $("opt-explored").checked && !EXPLORES.has(a.response.algorithm)) {
      notes.push(`${a.response.algorithm} reports no explored cells.`);
    }
    if (S.undo.length) notes.push(`Searches run on the saved revision ${S.revision}: save to search your edits.`);
    const shown = shownResult();
    if (shown && shown.response) {
      const r = shown.response;
      notes.push(`Heat map: ${shown.response.algorithm || shown.request.algorithm}'s explored cells.`);
      if (r.explored && r.explored.length < r.expanded) {
        notes.push(
          `The server lists the first ${r.explored.length.toLocaleString()} of ${r.expanded.toLocaleString()} expansions (MAX_EXPLORED).`,
        );
      }
    }
    $("path-note").textContent = notes.join(" ");
  }

  let flowSeq = 0;
  async function runFlow() {
    if (!S.flowGoal || !S.name) return;
    const seq = ++flowSeq;
    const request = { map: S.name, goal: S.flowGoal, ...movementRules() };
    try {
      const { data } = await api("POST", "flowfield", { body: request });
      if (seq !== flowSeq) return;
      const cost = decodeArray(data.cost);
      const next = decodeArray(data.next);
      const unit = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
      const vectors = data.directions.map((d) => d.split("").reduce((v, ch) => [v[0] + unit[ch][0], v[1] + unit[ch][1]], [0, 0]));
      let max = 1e-9;
      for (let i = 0; i < cost.length; i++) if (cost[i] > max) max = cost[i];
      S.flow = { cost, next, vectors, max, response: data };
      hideError();
      $("flow-info").textContent =
        `Goal [${data.goal}]: ${data.reachable.toLocaleString()} cells reach it; farthest costs ${Number(max.toFixed(3))}. ` +
        "Bright: near, dark blue: far, dark red: cannot reach. Zoom in for arrows.";
    } catch (err) {
      if (seq !== flowSeq) return;
      S.flow = null;
      report(err, runFlow);
    }
    rebuildOverlay();
    requestDraw();
  }

  function parsePathText(text) {
    const value = JSON.parse(text);
    if (!Array.isArray(value)) throw new Error("a path is a list of [x, y] pairs");
    return value;
  }

  async function runValidate() {
    if (!S.name) return;
    let path;
    try {
      path = parsePathText($("val-path").value || "[]");
    } catch (err) {
      showError(`The path is not valid JSON such as [[1, 2], [2, 3]]: ${err.message}`);
      return;
    }
    S.valPath = path.filter((c) => Array.isArray(c) && c.length === 2);
    const request = { map: S.name, revision: S.revision, path, mode: $("val-mode").value, ...movementRules() };
    try {
      const { data } = await api("POST", "validate", { body: request });
      S.validation = { request, response: data };
      hideError();
    } catch (err) {
      S.validation = null;
      report(err, runValidate);
    }
    renderValidation();
    requestDraw();
  }

  function renderValidation() {
    const verdict = $("val-verdict");
    const list = $("val-violations");
    list.replaceChildren();
    const v = S.validation;
    if (!v) {
      verdict.textContent = "";
      verdict.className = "";
      return;
    }
    const r = v.response;
    verdict.className = r.valid ? "valid" : "invalid";
    verdict.textContent = `${r.valid ? "Valid" : "Invalid"}: ${r.checked} entries checked, cost ${Number(r.cost.toFixed(6))}.`;
    for (const violation of r.violations) {
      const li = document.createElement("li");
      li.value = violation.index;
      const code = document.createElement("code");
      code.textContent = violation.code;
      li.append(code, document.createTextNode(` ${violation.message}`));
      li.dataset.code = violation.code;
      list.append(li);
    }
  }

  // ---- input -------------------------------------------------------------------------------

  function cellAt(clientX, clientY) {
    const rect = canvas.getBoundingClientRect();
    const x = Math.floor((clientX - rect.left - S.panX) / S.zoom);
    const y = Math.floor((clientY - rect.top - S.panY) / S.zoom);
    return [x, y];
  }
  const inMap = ([x, y]) => x >= 0 && y >= 0 && x < S.width && y < S.height;

  let pan = null; // {x, y, panX, panY}
  let press = null; // a left press with a non-paint tool: a click unless it moves

  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  canvas.addEventListener("pointerdown", (e) => {
    canvas.focus();
    if (!S.width) return;
    canvas.setPointerCapture(e.pointerId);
    const cell = cellAt(e.clientX, e.clientY);
    if (e.button === 1 || e.button === 2) {
      pan = { x: e.clientX, y: e.clientY, panX: S.panX, panY: S.panY };
      return;
    }
    if (e.button !== 0) return;
    let value = null;
    if (e.ctrlKey || e.metaKey) value = "blocked";
    else if (e.altKey) value = "walkable";
    else value = toolValue(S.tool);
    if (value === null) {
      press = { x: e.clientX, y: e.clientY, cell, panX: S.panX, panY: S.panY };
      return;
    }
    e.preventDefault();
    const classes = S.terrain.length;
    if ($("rect-mode").checked) {
      const clamp = ([x, y]) => [Math.max(0, Math.min(S.width - 1, x)), Math.max(0, Math.min(S.height - 1, y))];
      rectDrag = { value, from: clamp(cell), to: clamp(cell), classes, clamp };
    } else {
      stroke = { value, changed: new Map(), last: cell, classes };
      if (inMap(cell)) paintCell(...cell);
    }
    requestDraw();
  });

  canvas.addEventListener("pointermove", (e) => {
    const cell = cellAt(e.clientX, e.clientY);
    showCell(cell);
    if (pan) {
      S.panX = pan.panX + e.clientX - pan.x;
      S.panY = pan.panY + e.clientY - pan.y;
      requestDraw();
    } else if (press) {
      if (press.moved || Math.hypot(e.clientX - press.x, e.clientY - press.y) > 4) {
        press.moved = true;
        S.panX = press.panX + e.clientX - press.x;
        S.panY = press.panY + e.clientY - press.y;
        requestDraw();
      }
    } else if (stroke) {
      const clip = ([x, y]) => [Math.max(-1, Math.min(S.width, x)), Math.max(-1, Math.min(S.height, y))];
      paintLine(clip(stroke.last), clip(cell));
      stroke.last = cell;
      requestDraw();
    } else if (rectDrag) {
      rectDrag.to = rectDrag.clamp(cell);
      requestDraw();
    }
  });

  canvas.addEventListener("pointerup", () => {
    if (stroke) finishStroke();
    if (rectDrag) finishRect();
    if (press && !press.moved && inMap(press.cell)) clickCell(press.cell);
    pan = press = null;
    requestDraw();
  });

  canvas.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      const rect = canvas.getBoundingClientRect();
      const mx = e.clientX - rect.left, my = e.clientY - rect.top;
      const factor = Math.pow(1.0015, -e.deltaY);
      const zoom = Math.max(0.05, Math.min(96, S.zoom * factor));
      S.panX = mx - ((mx - S.panX) * zoom) / S.zoom;
      S.panY = my - ((my - S.panY) * zoom) / S.zoom;
      S.zoom = zoom;
      showZoom();
      requestDraw();
    },
    { passive: false },
  );

  function showCell(cell) {
    if (!inMap(cell)) {
      $("status-cell").textContent = "";
      return;
    }
    const v = S.cells[cell[1] * S.width + cell[0]];
    const what = v === 0 ? "blocked" : `${S.terrain[v - 1].name} (cost ${S.terrain[v - 1].cost})`;
    let extra = "";
    if (S.tool === "flow" && S.flow) {
      const c = S.flow.cost[cell[1] * S.width + cell[0]];
      extra = c < 0 ? " · cannot reach the goal" : ` · cost to goal ${Number(c.toFixed(3))}`;
    }
    $("status-cell").textContent = `[${cell[0]}, ${cell[1]}] ${what}${extra} ·`;
  }

  function clickCell(cell) {
    if (worlds && worlds.click(cell)) {
      requestDraw();
      return;
    }
    if (S.tool === "path") {
      if (!S.start || S.goal) {
        S.start = cell;
        S.goal = null;
        S.results = { a: null, b: null };
        renderFigures();
        rebuildOverlay();
        status("Start set: click a goal.");
      } else {
        S.goal = cell;
        runPath();
      }
    } else if (S.tool === "flow") {
      S.flowGoal = cell;
      runFlow();
    } else if (S.tool === "group") {
      groupClick(cell);
    } else if (S.tool === "validate") {
      S.valPath.push(cell);
      $("val-path").value = JSON.stringify(S.valPath);
      S.validation = null;
      renderValidation();
    }
    requestDraw();
  }

  function setTool(tool) {
    S.tool = tool;
    document.body.dataset.tool = tool;
    for (const b of document.querySelectorAll("[data-tool]")) {
      if (b.tagName === "BUTTON") b.classList.toggle("active", b.dataset.tool === tool);
    }
    $("flow-panel").style.display = tool === "flow" ? "" : "none";
    $("validate-panel").style.display = tool === "validate" ? "" : "none";
    $("group-panel").style.display = tool === "group" ? "" : "none";
    $("results").style.display = tool === "flow" || tool === "validate" || tool === "group" ? "none" : "";
    if (tool === "flow" && S.flowGoal && !S.flow) runFlow();
    rebuildOverlay();
    requestDraw();
  }

  let optionTimer = null;
  function optionsChanged() {
    clearTimeout(optionTimer);
    optionTimer = setTimeout(() => {
      optionTimer = null;
      if (S.start && S.goal) runPath();
      if (S.flowGoal) {
        S.flow = null;
        if (S.tool === "flow") runFlow();
      }
      if (S.validation) runValidate();
      if (worlds) worlds.optionsChanged();
    }, 120);
  }

  document.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-tool]");
    if (b) setTool(b.dataset.tool);
  });
  for (const el of document.querySelectorAll("#path-options select, #path-options input")) {
    el.addEventListener("change", optionsChanged);
  }
  $("toggle-compare").addEventListener("click", toggleCompare);
  function toggleCompare() {
    if (!S.results.b) return;
    S.showB = !S.showB;
    renderFigures();
    rebuildOverlay();
    requestDraw();
  }

  $("map-select").addEventListener("change", (e) => {
    if (S.undo.length && !confirm("Discard your unsaved edits?")) {
      e.target.value = S.name;
      return;
    }
    if (S.isNew) S.isNew = false;
    if (worlds) worlds.mapPicked(e.target.value); // a map outside the world leaves it
    loadMap(e.target.value);
  });
  $("reload").addEventListener("click", () => {
    if (S.undo.length && !confirm("Discard your unsaved edits?")) return;
    hideError();
    loadMapList(S.isNew ? undefined : S.name);
    if (worlds) worlds.reload();
  });
  $("save").addEventListener("click", save);
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("download-png").addEventListener("click", async () => S.name && download(await pngBlob(), `${S.name}.png`));
  $("download-map").addEventListener("click", () => S.name && download(new Blob([movingAiText()], { type: "text/plain" }), `${S.name}.map`));

  $("new-map-toggle").addEventListener("click", () => ($("new-map").hidden = !$("new-map").hidden));
  $("new-cancel").addEventListener("click", () => ($("new-map").hidden = true));
  $("new-map").addEventListener("submit", (e) => {
    e.preventDefault();
    const width = Number($("new-width").value), height = Number($("new-height").value);
    const name = $("new-name").value;
    $("new-map").hidden = true;
    Object.assign(S, {
      name, isNew: true, width, height, revision: null,
      terrain: [{ name: "ground", cost: 1 }],
      cells: new Uint16Array(width * height).fill(1),
      undo: [], redo: [], start: null, goal: null, flowGoal: null, flow: null, valPath: [], validation: null,
      loadStarted: performance.now(),
    });
    S.results = { a: null, b: null };
    const o = document.createElement("option");
    o.value = name;
    o.textContent = `${name} (new, not saved)`;
    $("map-select").append(o);
    $("map-select").value = name;
    rebuildBase();
    afterMapChange();
    renderFigures();
    fitView();
    status(`New map ${name}: paint it, then Save (PUT /maps/${name}).`);
  });

  $("val-run").addEventListener("click", runValidate);
  $("group-run").addEventListener("click", runGroup);
  $("group-validate").addEventListener("click", validateGroup);
  $("group-play").addEventListener("click", groupPlay);
  $("group-clear").addEventListener("click", () => {
    G.starts = [];
    G.goals = [];
    G.plan = null;
    G.violations = [];
    G.tick = 0;
    groupInfo("Click start cells, then switch to Goals and click as many goals.");
  });
  $("group-tick").addEventListener("input", () => {
    G.tick = Number($("group-tick").value);
    groupInfo($("group-info").textContent);
  });
  $("val-clear").addEventListener("click", () => {
    S.valPath = [];
    S.validation = null;
    $("val-path").value = "";
    renderValidation();
    requestDraw();
  });
  $("val-use-path").addEventListener("click", () => {
    const shown = shownResult();
    if (!shown || !shown.response) return;
    const cells = $("val-mode").value === "cells" ? shown.response.path : shown.response.waypoints;
    $("val-path").value = JSON.stringify(cells);
    S.valPath = cells.slice();
    requestDraw();
  });
  $("val-path").addEventListener("change", () => {
    try {
      S.valPath = parsePathText($("val-path").value || "[]");
    } catch {
      /* shown when validated */
    }
    requestDraw();
  });
  $("val-mode").addEventListener("change", () => S.validation && runValidate());

  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select")) return;
    const key = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && key === "z") {
      e.preventDefault();
      if (e.shiftKey) redo();
      else undo();
    } else if ((e.ctrlKey || e.metaKey) && key === "y") {
      e.preventDefault();
      redo();
    } else if (!e.ctrlKey && !e.metaKey && !e.altKey && key === "f") fitView();
    else if (!e.ctrlKey && !e.metaKey && !e.altKey && key === "t") toggleCompare();
  });
  // Alt alone would focus the browser's menu bar in some browsers and end an Alt + drag.
  document.addEventListener("keyup", (e) => e.key === "Alt" && e.preventDefault());

  new ResizeObserver(() => requestDraw()).observe(canvas);

  // ---- for tests and scripts ---------------------------------------------------------------

  window.gridpath = {
    get state() {
      return S;
    },
    // Where cell [x, y]'s centre is, in the page's CSS pixels (for mouse events).
    cellToClient(x, y) {
      const rect = canvas.getBoundingClientRect();
      const [sx, sy] = centre([x, y]);
      return { x: rect.left + sx, y: rect.top + sy };
    },
    cell(x, y) {
      return S.cells[y * S.width + x];
    },
    // The canvas pixel [r, g, b, a] at cell [x, y]'s centre: what is drawn there.
    pixel(x, y) {
      const dpr = window.devicePixelRatio || 1;
      const [sx, sy] = centre([x, y]);
      return Array.from(ctx.getImageData(Math.floor(sx * dpr), Math.floor(sy * dpr), 1, 1).data);
    },
    get idle() {
      return busy === 0 && !drawPending && optionTimer === null && !(worlds && worlds.busy);
    },
    // The chosen world (worlds.js): its links, what was drawn of them, its path's legs.
    get world() {
      return worlds ? worlds.state : null;
    },
    loadWorld: (name) => worlds && worlds.choose(name),
    showMap: (name) => (worlds ? worlds.showMap(name) : loadMap(name)),
    loadMap,
    setTool,
    fitView,
    setView(zoom, panX, panY) {
      Object.assign(S, { zoom, panX, panY });
      showZoom();
      requestDraw();
    },
  };
  // worlds.js (loaded first) draws a world's links and paths with the page's own helpers
  if (window.GridpathWorlds) {
    worlds = window.GridpathWorlds({
      S, $, api, ApiError, PLAIN, report, showError, hideError, status, askTokens, ensureAdmin,
      requestDraw, centre, ctx, canvas, polyline, dots, drawMarker, loadMap, searchOptions,
      setTool, rebuildOverlay, renderFigures, TOKEN_KEYS,
    });
  }
  setTool("path");
  renderFigures();
  showPending();
  loadAlgorithms();
  loadMapList();
})();
