-- pool-inspect.lua: reads one entity's pool level, whether it can take appends, and its take rate; changes nothing.
--
-- KEYS (all share the hash tag {<prefix>:pool:<entity>}):
--   KEYS[1]  ids   the list of IDs
--   KEYS[2]  meta  hash {run_id, hw}
--   KEYS[3]  rate  hash {sec, count, prev}
-- Reply: {level, state, rate, hw}
--   state 'OK'    stamped by this Redis and seeded: appends above hw are accepted
--         'SEED'  stamped by this Redis but hw unknown: a refiller must seed it from the database first
--         'RESET' stamped by another Redis, or not at all: the next take or append drops the list
--   rate  IDs taken in the last full second; hw the largest ID appended so far, or '' when unknown

local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

local meta = redis.call('HMGET', KEYS[2], 'run_id', 'hw')
local state = 'OK'
if meta[1] ~= server_identity() then
  state = 'RESET'
elseif not meta[2] then
  state = 'SEED'
end
local sec = tonumber(redis.call('TIME')[1])
local r = redis.call('HMGET', KEYS[3], 'sec', 'count', 'prev')
local rate = 0
if tonumber(r[1]) == sec then
  rate = tonumber(r[3]) or 0
elseif tonumber(r[1]) == sec - 1 then
  rate = tonumber(r[2])
end
return {redis.call('LLEN', KEYS[1]), state, rate, meta[2] or ''}
