// gridpath from TypeScript (Node 18+: fetch is built in), typed by the declarations that
// `make clients` generates from the service's OpenAPI document (openapi-typescript).
//
//   make clients && cd examples/typescript && npm ci && npm run build
//   node dist/find_path.js http://127.0.0.1:8000
//
// With API_TOKEN set on the server, pass it as GRIDPATH_TOKEN.
import type { components } from "gridpath";

type PathRequest = components["schemas"]["PathRequest"];
type PathResponse = components["schemas"]["PathResponse"];
type ValidateRequest = components["schemas"]["ValidateRequest"];
type ValidateResponse = components["schemas"]["ValidateResponse"];
type ErrorResponse = components["schemas"]["ErrorResponse"];

const base = process.argv[2] ?? "http://127.0.0.1:8000";
const token = process.env.GRIDPATH_TOKEN;

// One POST; every error has the same envelope: {"error": {"code", "message"}}.
async function post<Req, Res>(route: string, body: Req): Promise<Res> {
  const response = await fetch(base + route, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const { error } = (await response.json()) as ErrorResponse;
    throw new Error(`${response.status} ${error.code}: ${error.message}`);
  }
  return (await response.json()) as Res;
}

async function main(): Promise<void> {
  // Cells are [x, y]: x the column, y the row, origin at the map's top-left cell.
  const path = await post<PathRequest, PathResponse>("/path", {
    map: "arena",
    start: [1, 1],
    goal: [60, 60],
    include: ["path", "waypoints"],
  });
  // Check a claimed path against the revision it was computed on (anti-cheat).
  const verdict = await post<ValidateRequest, ValidateResponse>("/validate", {
    map: "arena",
    path: path.path ?? [],
    revision: path.revision,
  });
  const summary = {
    found: path.found,
    cost: path.cost,
    waypoints: path.waypoints?.length ?? 0,
    revision: path.revision,
    path_hash: path.path_hash,
    valid: verdict.valid,
  };
  console.log(JSON.stringify(summary));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
