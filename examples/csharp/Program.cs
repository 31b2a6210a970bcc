// gridpath from C# (.NET 8, HttpClient and System.Text.Json only): the workflow of an
// authoritative game server.
//
//   1. compute a unit's path and keep the map revision and path_hash it was computed on;
//   2. when a game client reports the path it walked, validate the claim against that
//      revision (anti-cheat): the service answers valid, or the violations;
//   3. if the map changed in between (an edit made a new revision), /path with the old
//      revision answers 409 stale_revision: recompute on the current revision.
//
// Coordinates: cells are [x, y], x the column, y the row, origin at the map's top-left
// cell (see the README's "Coordinates" section for Unity and Godot).
using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;
using System.Text.Json.Serialization;

var baseUrl = args.Length > 0 ? args[0] : "http://127.0.0.1:8000";
using var http = new HttpClient { BaseAddress = new Uri(baseUrl) };
var token = Environment.GetEnvironmentVariable("GRIDPATH_TOKEN");
if (!string.IsNullOrEmpty(token))
    http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", token);

var authority = new PathAuthority(http);

// 1. The server's own path; keep revision and path_hash with the unit's order.
var order = await authority.FindPathAsync("arena", start: [1, 1], goal: [60, 60]);
Console.WriteLine($"path: {order.Path.Length} cells, cost {order.Cost:F3}, " +
                  $"revision {order.Revision}, hash {order.PathHash[..12]}");

// 2. A client's claimed path (here: the server's own, so it is valid).
var verdict = await authority.ValidateAsync("arena", order.Path, order.Revision);
Console.WriteLine($"claim valid: {verdict.Valid}");

// A cheater's claim skips cells: not_adjacent.
var jumped = order.Path.Take(3).Concat(order.Path.Skip(10)).ToArray();
var cheat = await authority.ValidateAsync("arena", jumped, order.Revision);
Console.WriteLine($"cheat valid: {cheat.Valid} ({string.Join(", ", cheat.Violations.Select(v => v.Code))})");

// 3. Pinning the revision: 409 stale_revision when the map moved on; then recompute.
try
{
    await authority.FindPathAsync("arena", [1, 1], [60, 60], revision: order.Revision + 1);
}
catch (GridpathException e) when (e.Code == "stale_revision")
{
    Console.WriteLine($"409 {e.Code}: {e.Message} -> recompute on the current revision");
    order = await authority.FindPathAsync("arena", [1, 1], [60, 60]);
}

sealed class PathAuthority(HttpClient http)
{
    static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web)
    {
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public Task<PathResponse> FindPathAsync(string map, int[] start, int[] goal, int? revision = null) =>
        PostAsync<PathResponse>("/path", new PathRequest(map, start, goal, revision));

    public Task<ValidateResponse> ValidateAsync(string map, int[][] path, int revision) =>
        PostAsync<ValidateResponse>("/validate", new ValidateRequest(map, path, revision));

    async Task<T> PostAsync<T>(string route, object body)
    {
        using var response = await http.PostAsJsonAsync(route, body, Json);
        if (response.IsSuccessStatusCode)
            return (await response.Content.ReadFromJsonAsync<T>(Json))!;
        // Every error is {"error": {"code", "message"}}: branch on the code, show the message.
        var error = await response.Content.ReadFromJsonAsync<ErrorResponse>(Json);
        throw new GridpathException(response.StatusCode, error?.Error.Code ?? "unknown",
                                    error?.Error.Message ?? response.ReasonPhrase ?? "");
    }
}

sealed class GridpathException(HttpStatusCode status, string code, string message) : Exception(message)
{
    public HttpStatusCode Status { get; } = status;
    public string Code { get; } = code;
}

// The wire format (snake_case names are set where C# names differ).
record PathRequest(string Map, int[] Start, int[] Goal, int? Revision);
record PathResponse(
    string Map, int Revision, bool Found, double? Cost, int[][] Path,
    [property: JsonPropertyName("path_hash")] string PathHash);
record ValidateRequest(string Map, int[][] Path, int Revision);
record Violation(int Index, string Code, string Message);
record ValidateResponse(bool Valid, double Cost, Violation[] Violations);
record ErrorBody(string Code, string Message);
record ErrorResponse(ErrorBody Error);
