-- redis-identity.lua: a library, never run alone (LuaScript.compose puts it in front of the scripts that take and
-- admit on every call: pool-take.lua, request-admit.lua, request-admit-take.lua).

-- The identity of this Redis in its present role: its replication id, which Redis draws anew at every start (a
-- restart lost what was written since the last snapshot, or all of it; a snapshot or append-only file may have
-- brought back older data) and at every promotion of a replica (it may have lagged). Returns INFO replication's
-- text, that id and TIME's reply. Read on every call, never cached: a plain find, not a pattern.
local function identity_and_time()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  return info, string.sub(info, i + 14, string.find(info, '\r', i, true) - 1), redis.call('TIME')
end
