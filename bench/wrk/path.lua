-- wrk script: POST /path (or URL_PATH) with JSON bodies read from a file, one per line:
--   wrk -s bench/wrk/path.lua URL -- BODIES_FILE MAX_REQUESTS [THREADS [URL_PATH]]
-- Threads start at spread offsets and stop after MAX_REQUESTS / threads answers (0: no limit);
-- a 200 without "found":true is a bad answer; done() prints "WRK_JSON {...}" for bench/load.py.

local bodies = {}
local next_body = 1
local limit = 0
local url_path = "/path"
local seen = 0
bad = 0 -- global: done() reads it from each thread with thread:get("bad")

local threads = {}

function setup(thread)
   thread:set("index", #threads)
   table.insert(threads, thread)
end

function init(args)
   local file = args[1]
   if file == nil then
      error("usage: wrk ... -s path.lua URL -- BODIES_FILE [MAX_REQUESTS]")
   end
   for line in io.lines(file) do
      if #line > 0 then
         table.insert(bodies, line)
      end
   end
   if #bodies == 0 then
      error("no request bodies in " .. file)
   end
   local total = tonumber(args[2] or "0")
   local count = tonumber(args[3] or "1")
   url_path = args[4] or url_path
   if total > 0 then
      limit = math.max(1, math.floor(total / count))
   end
   -- spread the threads' starting points over the file
   next_body = (index * 7919) % #bodies + 1
end

function request()
   local body = bodies[next_body]
   next_body = next_body % #bodies + 1
   return wrk.format("POST", url_path, { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
   if status == 200 and not string.find(body, '"found":true', 1, true) then
      bad = bad + 1
   end
   seen = seen + 1
   if limit > 0 and seen >= limit then
      wrk.thread:stop()
   end
end

function done(summary, latency, requests)
   local bad_total = 0
   for _, thread in ipairs(threads) do
      bad_total = bad_total + (thread:get("bad") or 0)
   end
   local e = summary.errors
   io.write(string.format(
      'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"bad_answer":%d},' ..
      '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout, bad_total,
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency.max, latency.mean))
end
