// Worlds on the page: a world's maps shown one at a time, its links drawn over the shown map,
// an admin's link edits (each one PATCH /worlds/{name} with if_revision) and a path through
// the world drawn leg by leg. Plain JavaScript, no build step: app.js installs it with the
// page's own helpers (window.GridpathWorlds(page)) and calls its hooks (draw, click,
// mapShown, mapPicked, optionsChanged, reload, init).
//
// Decisions:
// - The world is read with GET /worlds/{name}; after an edit the page reads the revision the
//   PATCH answered (`?revision=`), so what is drawn is what the server now serves.
// - A path through the world is asked with `world_revision`: its legs are on the links drawn.
// - Flow field, Validate and Group stay plain map tools on the shown map.
"use strict";

window.GridpathWorlds = (page) => {
  const { S, $, api, PLAIN, report, showError, hideError, status, requestDraw, centre } = page;
  const { ctx, canvas, polyline, dots, drawMarker } = page;

  const LINK_RGB = "rgb(176,0,160)"; // a hue no terrain class, path or waypoint line uses
  const PLAY_MS = 60; // one cell per tick in the play-through; a link takes four ticks
  const HINT = "Path tool: click a start, then a goal, on any map of the world (switch maps above between the clicks).";

  const W = {
    list: [], // GET /worlds
    name: null,
    revision: null,
    maps: [], // [{name, revision}]
    links: [], // the world's own links (an admin edits them)
    mapLinks: [], // links the maps' Tiled objects declare (edited in Tiled)
    drawn: [], // what the last draw put on the canvas, in canvas CSS pixels
    hover: null, // the id of the link under the pointer
    start: null, // places {map, cell}
    goal: null,
    result: null, // {request, response, searchMs} or {request, error}
    leg: null, // the selected leg
    pick: { from: null, to: null }, // the link being added
    play: null, // {leg, step, timer, maps: [map shown at each leg change]}
  };

  const worldMaps = () => W.maps.map((m) => m.name);
  const allLinks = () => W.links.concat(W.mapLinks);
  const findLink = (id) => allLinks().find((l) => l.id === id);
  const placeText = (p) => `${p.map} [${p.cell[0]}, ${p.cell[1]}]`;
  const same = (a, b) => a[0] === b[0] && a[1] === b[1];
  const round = (v) => Number(Number(v).toFixed(6));

  function describe(link) {
    const way = link.bidirectional ? "↔" : "→";
    const parts = [`${link.id}: ${placeText(link.from)} ${way} ${placeText(link.to)}`, `cost ${link.cost}`];
    if (!link.enabled) parts.push("disabled");
    if (link.tags && link.tags.length) parts.push(`tags ${link.tags.join(", ")}`);
    if (W.mapLinks.includes(link)) parts.push("from the map's Tiled objects");
    return parts.join(" · ");
  }

  // ---- drawing -----------------------------------------------------------------------------

  function lineStyle(width, dashed) {
    ctx.lineWidth = width;
    ctx.lineCap = "butt";
    ctx.setLineDash(dashed ? [width * 3, width * 2.5] : []);
  }

  function head(tip, ux, uy, size) {
    ctx.beginPath();
    ctx.moveTo(tip[0], tip[1]);
    ctx.lineTo(tip[0] - ux * size - uy * size * 0.55, tip[1] - uy * size + ux * size * 0.55);
    ctx.lineTo(tip[0] - ux * size + uy * size * 0.55, tip[1] - uy * size - ux * size * 0.55);
    ctx.closePath();
    ctx.fill();
  }

  // A link with both ends on the shown map: an arrow from its entrance to its exit.
  function drawArrow(link, width) {
    const from = centre(link.from.cell), to = centre(link.to.cell);
    const length = Math.hypot(to[0] - from[0], to[1] - from[1]);
    const ux = (to[0] - from[0]) / length, uy = (to[1] - from[1]) / length;
    const size = Math.min(Math.max(8, width * 3.4), length * 0.3); // a short link keeps its shaft
    // the shaft stops under the heads, so a dash never pokes out of a tip
    const a = link.bidirectional ? size * 0.8 : 0, b = size * 0.8;
    const shaft = [[from[0] + ux * a, from[1] + uy * a], [to[0] - ux * b, to[1] - uy * b]];
    ctx.save();
    for (const [colour, w, dashed] of [["rgba(255,255,255,0.85)", width + 2.5, false], [LINK_RGB, width, !link.enabled]]) {
      ctx.strokeStyle = colour;
      lineStyle(w, dashed);
      ctx.beginPath();
      ctx.moveTo(...shaft[0]);
      ctx.lineTo(...shaft[1]);
      ctx.stroke();
    }
    ctx.fillStyle = LINK_RGB;
    head(to, ux, uy, size);
    if (link.bidirectional) head(from, -ux, -uy, size);
    ctx.restore();
    const heads = link.bidirectional ? 2 : 1;
    W.drawn.push({ id: link.id, kind: "arrow", dashed: !link.enabled, heads, from, to, width });
  }

  // One end on the shown map: a marker there naming the other map (→ out, ← in, ↔ both).
  function drawEnd(link, side, width) {
    const here = link[side], other = link[side === "from" ? "to" : "from"];
    const at = centre(here.cell);
    const radius = Math.max(5, Math.min(S.zoom * 0.45, 10));
    const glyph = link.bidirectional ? "↔" : side === "from" ? "→" : "←";
    const text = other.map === here.map ? `${glyph} itself` : `${glyph} ${other.map}`;
    ctx.save();
    ctx.strokeStyle = LINK_RGB;
    ctx.fillStyle = link.enabled ? LINK_RGB : "#fff";
    lineStyle(Math.max(2, width * 0.8), !link.enabled);
    ctx.beginPath();
    ctx.arc(at[0], at[1], radius, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
    ctx.font = "bold 11px system-ui, sans-serif";
    const box = [at[0] + radius + 3, at[1] - radius - 15, ctx.measureText(text).width + 10, 17];
    ctx.fillStyle = "rgba(255,255,255,0.92)";
    lineStyle(1.5, !link.enabled);
    ctx.fillRect(...box);
    ctx.strokeRect(...box);
    ctx.fillStyle = LINK_RGB;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillText(text, box[0] + 5, box[1] + box[3] / 2 + 0.5);
    ctx.restore();
    W.drawn.push({ id: link.id, kind: "end", side, dashed: !link.enabled, other: other.map, at, radius, box, text });
  }

  function drawLinks() {
    const base = Math.max(2, Math.min(S.zoom * 0.16, 4));
    for (const link of allLinks()) {
      const a = link.from.map === S.name, b = link.to.map === S.name;
      const width = link.id === W.hover ? base * 1.7 : base;
      if (a && b && !same(link.from.cell, link.to.cell)) drawArrow(link, width);
      else if (a) drawEnd(link, "from", width);
      else if (b) drawEnd(link, "to", width);
    }
  }

  function drawPath() {
    const r = W.result && W.result.response;
    const line = Math.max(1.5, Math.min(S.zoom * 0.35, 5));
    if (r && r.legs) {
      r.legs.forEach((leg, i) => {
        if (leg.map !== S.name || !leg.path) return;
        const chosen = W.leg === null || W.leg === i;
        polyline(leg.path, chosen ? "#e0282e" : "rgba(224,40,46,0.35)", line);
        if (chosen && leg.waypoints) {
          polyline(leg.waypoints, "rgba(30,90,230,0.85)", Math.max(1, line / 2));
          dots(leg.waypoints, "#1e5ae6", Math.max(2.5, line * 0.9));
        }
      });
    }
  }

  function drawMarkers() {
    if (W.start && W.start.map === S.name) drawMarker(W.start.cell, "#138a3d", "S");
    if (W.goal && W.goal.map === S.name) drawMarker(W.goal.cell, "#d62828", "G");
    if (S.tool === "link") {
      if (W.pick.from && W.pick.from.map === S.name) drawMarker(W.pick.from.cell, LINK_RGB, "F");
      if (W.pick.to && W.pick.to.map === S.name) drawMarker(W.pick.to.cell, LINK_RGB, "T");
    }
    const p = W.play;
    if (p && W.result && W.result.response) {
      const leg = W.result.response.legs[p.leg];
      if (leg.map === S.name) drawMarker(leg.path[p.step], "#1e5ae6", "U");
    }
  }

  function draw() {
    W.drawn = [];
    if (!W.name || !worldMaps().includes(S.name)) return;
    const searching = !["flow", "validate", "group"].includes(S.tool);
    if (searching) drawPath();
    drawLinks();
    if (searching) drawMarkers();
  }

  // ---- hover: the link id ------------------------------------------------------------------

  function segmentDistance(x, y, [x0, y0], [x1, y1]) {
    const dx = x1 - x0, dy = y1 - y0;
    const t = Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(x - (x0 + t * dx), y - (y0 + t * dy));
  }

  function hitTest(x, y) {
    for (let i = W.drawn.length - 1; i >= 0; i--) {
      const d = W.drawn[i];
      if (d.kind === "arrow" && segmentDistance(x, y, d.from, d.to) <= d.width / 2 + 4) return d;
      if (d.kind !== "end") continue;
      const [bx, by, bw, bh] = d.box;
      if (Math.hypot(x - d.at[0], y - d.at[1]) <= d.radius + 3) return d;
      if (x >= bx && x <= bx + bw && y >= by && y <= by + bh) return d;
    }
    return null;
  }

  function hover(e) {
    const tip = $("link-tip");
    const rect = canvas.getBoundingClientRect();
    const x = e ? e.clientX - rect.left : 0, y = e ? e.clientY - rect.top : 0;
    const hit = e && !e.buttons && W.name ? hitTest(x, y) : null;
    const id = hit ? hit.id : null;
    if (id !== W.hover) {
      W.hover = id;
      requestDraw();
    }
    tip.hidden = !hit;
    if (!hit) return;
    tip.textContent = describe(findLink(id));
    tip.style.left = `${x + 14}px`;
    tip.style.top = `${y + 14}px`;
  }
  canvas.addEventListener("pointermove", hover);
  canvas.addEventListener("pointerleave", () => hover(null));

  // ---- the world: list, choice, maps -------------------------------------------------------

  async function loadList(select) {
    try {
      W.list = (await api("GET", "worlds")).data.worlds;
    } catch (err) {
      if (err.status === 404) $("world-label").hidden = true; // a server without worlds
      else report(err, () => loadList(select));
      return;
    }
    const sel = $("world-select");
    sel.replaceChildren(new Option("(none: one map)", ""));
    for (const w of W.list) {
      sel.append(new Option(`${w.name} (${w.maps.length} maps, ${w.links} links)`, w.name));
    }
    if (select && select !== W.name && W.list.some((w) => w.name === select)) await choose(select);
    else sel.value = W.name || "";
  }

  async function fetchWorld(name, revision = null) {
    const query = revision ? `?revision=${revision}` : "";
    try {
      const { data } = await api("GET", `worlds/${encodeURIComponent(name)}${query}`);
      Object.assign(W, {
        name: data.name,
        revision: data.revision,
        maps: data.maps,
        links: data.links,
        mapLinks: data.map_links || [],
      });
      const option = [...$("world-select").options].find((o) => o.value === data.name);
      if (option) option.textContent = `${data.name} (${data.maps.length} maps, ${data.links.length} links)`;
    } catch (err) {
      report(err, () => fetchWorld(name, revision));
      return false;
    }
    render();
    requestDraw();
    return true;
  }

  function forget() {
    stopPlay();
    Object.assign(W, { name: null, revision: null, maps: [], links: [], mapLinks: [], hover: null });
    Object.assign(W, { start: null, goal: null, result: null, leg: null, pick: { from: null, to: null } });
  }

  // Choose a world (or none): its first map is shown unless the shown map is one of it.
  async function choose(name) {
    forget();
    // the plain map's query, explored cells and compared path do not belong to the world
    Object.assign(S, { start: null, goal: null, results: { a: null, b: null } });
    page.renderFigures();
    page.rebuildOverlay();
    $("world-select").value = name || "";
    if (name && (await fetchWorld(name))) {
      if (!worldMaps().includes(S.name)) await showMap(worldMaps()[0]);
      else mapShown();
    } else {
      if (S.tool === "link") page.setTool("path");
      if (S.name) history.replaceState(null, "", `#map=${encodeURIComponent(S.name)}`);
    }
    render();
    requestDraw();
  }

  async function showMap(name) {
    if (S.name === name) {
      requestDraw();
      return;
    }
    if (S.undo.length && !confirm("Discard your unsaved edits?")) return;
    await page.loadMap(name);
  }

  function mapShown() {
    if (S.name) $("map-select").value = S.name;
    if (W.name) {
      const hash = `#world=${encodeURIComponent(W.name)}&map=${encodeURIComponent(S.name)}`;
      history.replaceState(null, "", hash);
    }
    renderSwitcher();
  }

  // ---- the panel ---------------------------------------------------------------------------

  function render() {
    const on = Boolean(W.name);
    document.body.classList.toggle("world-mode", on);
    document.body.dataset.world = W.name || "";
    document.body.dataset.worldRevision = on ? String(W.revision) : "";
    $("world-panel").hidden = !on;
    if (on) {
      const n = W.links.length + W.mapLinks.length;
      $("world-info").textContent = `revision ${W.revision} · ${W.maps.length} maps · ${n} links`;
    }
    renderSwitcher();
    renderLinks();
    renderPick();
    renderPath();
  }

  function renderSwitcher() {
    const box = $("world-maps");
    box.replaceChildren();
    for (const name of worldMaps()) {
      const b = document.createElement("button");
      b.textContent = name;
      b.dataset.worldMap = name;
      b.title = `Show ${name} and its links`;
      b.classList.toggle("active", name === S.name);
      b.addEventListener("click", () => showMap(name));
      box.append(b);
    }
  }

  function linkRow(link, editable) {
    const li = document.createElement("li");
    li.dataset.link = link.id;
    li.classList.toggle("disabled", !link.enabled);
    li.title = describe(link);
    const swatch = document.createElement("span");
    swatch.className = "link-swatch";
    const id = document.createElement("code");
    id.textContent = link.id;
    const what = document.createElement("span");
    what.className = "what";
    const way = link.bidirectional ? "↔" : "→";
    what.textContent = `${placeText(link.from)} ${way} ${placeText(link.to)} · ${link.cost}`;
    li.append(swatch, id, what);
    if (editable) {
      const on = document.createElement("input");
      Object.assign(on, { type: "checkbox", checked: link.enabled, title: "Enabled (one PATCH opens or closes it)" });
      on.dataset.action = "toggle";
      on.addEventListener("change", () => toggleLink(link.id));
      const remove = document.createElement("button");
      Object.assign(remove, { textContent: "×", title: `Remove ${link.id} (one PATCH)` });
      remove.dataset.action = "remove";
      remove.addEventListener("click", () => removeLink(link.id));
      li.append(on, remove);
    } else {
      const note = document.createElement("span");
      Object.assign(note, { className: "hint", textContent: "Tiled", title: "Declared by the map's Tiled objects: edit it in Tiled" });
      li.append(note);
    }
    li.addEventListener("click", (e) => {
      if (e.target.closest("[data-action]")) return;
      W.hover = link.id; // highlighted until the pointer moves over the map
      showMap(link.from.map);
      requestDraw();
    });
    return li;
  }

  function renderLinks() {
    const list = $("world-links");
    list.replaceChildren(...W.links.map((l) => linkRow(l, true)), ...W.mapLinks.map((l) => linkRow(l, false)));
  }

  function renderPick() {
    const hint = "— click a cell with the Link tool";
    $("link-from").textContent = W.pick.from ? placeText(W.pick.from) : hint;
    $("link-to").textContent = W.pick.to ? placeText(W.pick.to) : hint;
    if (!$("link-id").value || findLink($("link-id").value)) {
      let n = allLinks().length + 1;
      while (findLink(`link_${n}`)) n++;
      $("link-id").value = `link_${n}`;
    }
  }

  function legItem(leg, i) {
    const li = document.createElement("li");
    li.value = i + 1;
    li.dataset.leg = String(i);
    li.dataset.map = leg.map;
    li.classList.toggle("active", W.leg === i);
    const map = document.createElement("strong");
    map.textContent = leg.map;
    const cells = leg.path ? `, ${leg.path.length} cells` : "";
    let then = " · goal";
    if (leg.link) {
      const link = findLink(leg.link);
      then = ` · then ${leg.link}${link ? ` (cost ${link.cost})` : ""}`;
      li.dataset.link = leg.link;
    }
    li.append(map, document.createTextNode(` · cost ${round(leg.cost)}${cells}${then}`));
    li.title = `Show this leg on ${leg.map}`;
    li.addEventListener("click", () => selectLeg(i));
    return li;
  }

  function renderPath() {
    const r = W.result && W.result.response;
    const info = $("world-path-info");
    $("world-legs").replaceChildren(...(r ? r.legs.map(legItem) : []));
    $("world-play").disabled = !(r && r.found);
    if (r) {
      const links = r.links.length ? `links ${r.links.join(", ")}` : "no link";
      info.textContent = r.found
        ? `Cost ${round(r.cost)} (legs + links) · ${r.legs.length} legs · ${links} · ${r.algorithm}, expanded ${r.expanded}, ${r.optimal ? "optimal" : "not optimal"}.`
        : `No path: ${r.reason}.`;
    } else if (W.result && W.result.error) info.textContent = `No answer: ${W.result.error.code}.`;
    else info.textContent = W.start ? `Start ${placeText(W.start)}: click a goal on any map of the world.` : HINT;
  }

  async function selectLeg(i) {
    W.leg = i;
    renderPath();
    await showMap(W.result.response.legs[i].map);
    requestDraw();
  }

  // ---- clicks: a path's ends, a new link's ends --------------------------------------------

  function click(cell) {
    if (!W.name) return false;
    const here = { map: S.name, cell };
    if (S.tool === "path") {
      if (!W.start || W.goal) {
        stopPlay();
        Object.assign(W, { start: here, goal: null, result: null, leg: null });
        status(`Start set on ${S.name}: click a goal, on this map or another of the world.`);
        renderPath();
      } else {
        W.goal = here;
        runPath();
      }
      return true;
    }
    if (S.tool === "link") {
      if (!W.pick.from || W.pick.to) W.pick = { from: here, to: null };
      else W.pick.to = here;
      renderPick();
      return true;
    }
    return false;
  }

  // ---- the path through the world ----------------------------------------------------------

  let pathSeq = 0;
  async function runPath(retried = false) {
    if (!W.name || !W.start || !W.goal) return;
    const seq = ++pathSeq;
    stopPlay();
    const options = page.searchOptions($("opt-algorithm").value);
    options.include = ["path", "waypoints"]; // a world's legs list no explored cells
    const request = { world: W.name, world_revision: W.revision, start: W.start, goal: W.goal, ...options };
    try {
      const { data, searchMs } = await api("POST", "path", { body: request });
      if (seq !== pathSeq) return;
      Object.assign(W, { result: { request, response: data, searchMs }, leg: null });
      hideError();
      status(data.found ? `path through ${W.name}: cost ${round(data.cost)}, ${data.legs.length} legs` : `no path: ${data.reason}`);
    } catch (err) {
      if (seq !== pathSeq) return;
      W.result = { request, error: err };
      if (err.code === "warming_up") {
        status(PLAIN.warming_up);
        setTimeout(() => seq === pathSeq && runPath(retried), 2000);
      } else if (err.code === "stale_revision" && !retried && (await fetchWorld(W.name))) {
        return runPath(true); // the world moved on: ask again on the revision now drawn
      } else report(err, () => runPath());
    }
    renderPath();
    requestDraw();
  }

  // ---- play-through: the unit walks each leg and takes each link ---------------------------

  function stopPlay() {
    if (W.play && W.play.timer) clearTimeout(W.play.timer);
    if (W.play) W.play.timer = null;
    $("world-play").textContent = "Play";
  }

  function togglePlay() {
    const r = W.result && W.result.response;
    if (W.play && W.play.timer) {
      stopPlay();
      return;
    }
    if (!r || !r.found) return;
    W.play = { leg: 0, step: 0, timer: null, maps: [] };
    $("world-play").textContent = "Pause";
    playAt(0, 0);
  }

  async function playAt(legIndex, step) {
    const p = W.play;
    const leg = W.result.response.legs[legIndex];
    if (p.leg !== legIndex || !p.maps.length) {
      W.leg = legIndex;
      renderPath();
      if (leg.map !== p.maps[p.maps.length - 1]) p.maps.push(leg.map);
      p.timer = -1; // switching maps: busy
      await showMap(leg.map);
      if (W.play !== p || p.timer === null) return; // stopped meanwhile
    }
    Object.assign(p, { leg: legIndex, step });
    document.body.dataset.worldPlay = `${legIndex}:${step}`;
    $("world-play-label").textContent = `leg ${legIndex + 1}, cell ${step + 1} of ${leg.path.length}`;
    requestDraw();
    const legs = W.result.response.legs;
    let next = null, wait = PLAY_MS;
    if (step < leg.path.length - 1) next = () => playAt(legIndex, step + 1);
    else if (legIndex < legs.length - 1) {
      next = () => playAt(legIndex + 1, 0);
      wait = PLAY_MS * 4; // the link's traversal
    }
    if (next) p.timer = setTimeout(next, wait);
    else {
      stopPlay();
      document.body.dataset.worldPlay = "done";
      $("world-play-label").textContent = `arrived (${legs.length} legs)`;
    }
  }

  // ---- link edits: one PATCH each ----------------------------------------------------------

  async function patchWorld(change, what) {
    if (!W.name) return false;
    const retry = () => patchWorld(change, what);
    if (!sessionStorage.getItem(page.TOKEN_KEYS.admin)) {
      page.askTokens("Changing a world's links needs the admin token (ADMIN_TOKEN).", retry, true);
      return false;
    }
    const body = { ...change, if_revision: W.revision };
    try {
      const { data } = await api("PATCH", `worlds/${encodeURIComponent(W.name)}`, { body, admin: true });
      hideError();
      await fetchWorld(W.name, data.revision);
      status(`${what}: world ${W.name} is at revision ${data.revision}.`);
      if (W.start && W.goal) runPath();
      return true;
    } catch (err) {
      renderLinks(); // a refused toggle's box shows the link as it is
      if (err.code === "revision_conflict") {
        showError(
          `Someone changed this world on the server since the page read it, so nothing was changed. (${err.status} ${err.code}: ${err.message})`,
          [["Reload the world", () => fetchWorld(W.name)], ["Keep the page as it is", () => {}]],
        );
      } else report(err, retry, true);
      return false;
    }
  }

  function toggleLink(id) {
    const link = W.links.find((l) => l.id === id);
    if (!link) return;
    const enabled = !link.enabled;
    patchWorld({ set: [{ id, enabled }] }, `${id} ${enabled ? "enabled" : "disabled"}`);
  }

  function removeLink(id) {
    patchWorld({ remove: [id] }, `${id} removed`);
  }

  async function addLink() {
    if (!W.pick.from || !W.pick.to) {
      showError("Pick the link's two cells first: with the Link tool, click its from cell, then its to cell (switch maps between the clicks for a link across maps).");
      return;
    }
    const link = { id: $("link-id").value.trim(), from: W.pick.from, to: W.pick.to };
    if ($("link-cost").value !== "") link.cost = Number($("link-cost").value);
    link.bidirectional = $("link-bidirectional").checked;
    if (await patchWorld({ add: [link] }, `${link.id} added`)) {
      W.pick = { from: null, to: null };
      renderPick();
      requestDraw();
    }
  }

  // ---- wiring ------------------------------------------------------------------------------

  $("world-select").addEventListener("change", (e) => choose(e.target.value));
  $("world-play").addEventListener("click", togglePlay);
  $("link-add").addEventListener("click", addLink);
  $("link-clear").addEventListener("click", () => {
    W.pick = { from: null, to: null };
    renderPick();
    requestDraw();
  });

  // `#world=NAME&map=MAP` opens that world (read now: loading the map rewrites the address)
  const wanted = new URLSearchParams(location.hash.slice(1)).get("world");
  let started = false;
  return {
    state: W,
    get busy() {
      return Boolean(W.play && W.play.timer);
    },
    init() {
      if (started) return;
      started = true;
      loadList(wanted);
    },
    reload() {
      if (started) loadList(W.name).then(() => W.name && fetchWorld(W.name));
    },
    choose,
    showMap,
    draw,
    click,
    mapShown,
    mapPicked(name) {
      if (W.name && !worldMaps().includes(name)) choose(null); // a map outside the world
    },
    optionsChanged() {
      if (W.start && W.goal) runPath();
    },
  };
};
