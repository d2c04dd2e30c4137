-- request-admit.lua: admits one signed call to the ID service for one application, atomically across every
-- instance sharing this Redis: refuses a call stamped before this Redis's present identity could have seen its
-- nonce, records its nonce (refusing a replay), checks the entity is allowed, counts the IDs against the
-- application's own limit.
--
-- KEYS (all share the hash tag {<prefix>:app:<appKey>}, so the script runs on Redis Cluster, and the marker sits
-- on the same node as the nonces it vouches for):
--   KEYS[1]  nonce   string, present while the call's timestamp can still pass on some instance
--   KEYS[2]  rate    hash {sec, count}: IDs admitted in second sec (Redis clock)
--   KEYS[3]  epoch   hash {id, start}: the Redis identity that has kept this application's nonces since start
--                    (epoch ms, Redis clock); no expiry
-- ARGV:
--   ARGV[1]  nonceTtlMs    how long to keep the nonce, at least 1
--   ARGV[2]  allowed       1 when the application may take from the entity, else 0
--   ARGV[3]  count         IDs asked for
--   ARGV[4]  maxPerSecond  the application's limit across all instances
--   ARGV[5]  timestamp     the call's X-Timestamp, epoch ms
--   ARGV[6]  guardMs       calls stamped before start + guardMs are refused: the window plus the clock tolerance,
--                          the latest a call whose nonce was recorded before start can be stamped
-- Reply:
--   {'RESET'}          the call is stamped before start + guardMs: its nonce may have been recorded, then lost
--                      with the data of an earlier identity; nothing recorded or counted
--   {'OK'}             admitted: the nonce is recorded, count is added to this second's IDs
--   {'REPLAY'}         the nonce was recorded before; nothing changed
--   {'FORBIDDEN'}      the nonce is recorded (the call was authentic), nothing counted
--   {'RATE', waitMs}   the nonce is recorded, nothing counted; the window closes in waitMs

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

-- The identity of this Redis in its present role: its replication id, which Redis draws anew at every start (a
-- restart lost the nonces since the last snapshot, or all of them) and at every promotion of a replica (it may
-- lack the last nonces). A plain find, not a pattern: this runs on every call.
local info = redis.call('INFO', 'replication')
local i = string.find(info, 'master_replid:', 1, true)
local identity = string.sub(info, i + 14, string.find(info, '\r', i, true) - 1)

local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local epoch = redis.call('HMGET', KEYS[3], 'id', 'start')
local start = tonumber(epoch[2])
if epoch[1] ~= identity or not start then
  -- No marker (a new application, or one whose keys were all lost) or a marker of another identity (this Redis
  -- restarted, with or without persistence: a restarted master always draws a new id; a replica was promoted;
  -- or a resharding moved the slot here from another node, marker and nonces together).
  -- When this Redis never was a replica since it started (master_replid2 all zeros), nothing of its data was
  -- lost since its process started: every nonce it recorded since then is still here, and every nonce lost with
  -- an earlier incarnation was recorded before this process started. So the identity starts at the process
  -- start, rounded up a second (uptime_in_seconds is truncated: the start is never taken earlier than the real
  -- one), and a restart refuses calls for at most the guard after it, for every application alike, however late
  -- its first call comes. A foreign marker keeps its own start when that is later: after a resharding its
  -- identity vouched for the nonces only since then (on the node the slot came from), so calls stamped before it
  -- plus the guard stay refused here too.
  -- After a promotion (master_replid2 set) this Redis may lack the last writes of the master it replaced, at any
  -- time before now: the identity starts now.
  start = nowMs
  local j = string.find(info, 'master_replid2:', 1, true)
  if string.sub(info, j + 15, j + 54) == string.rep('0', 40) then
    local up = string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)')
    if up then
      start = (tonumber(now[1]) - tonumber(up) + 1) * 1000
      if epoch[1] and tonumber(epoch[2]) and tonumber(epoch[2]) > start then
        start = tonumber(epoch[2])
      end
    end
  end
  -- formatted, not passed as a number: Redis would write a number this large in exponent form
  redis.call('HSET', KEYS[3], 'id', identity, 'start', string.format('%.0f', start))
end
if tonumber(ARGV[5]) < start + tonumber(ARGV[6]) then
  return {'RESET'}
end

-- SET NX first: of two calls carrying one nonce exactly one gets past this line, on whichever instance
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', tonumber(ARGV[1])) then
  return {'REPLAY'}
end
if ARGV[2] ~= '1' then
  return {'FORBIDDEN'}
end

local count = tonumber(ARGV[3])
local sec = tonumber(now[1])
local r = redis.call('HMGET', KEYS[2], 'sec', 'count')
local used = 0
if tonumber(r[1]) == sec then
  used = tonumber(r[2])
end
if used + count > tonumber(ARGV[4]) then
  return {'RATE', 1000 - math.floor(tonumber(now[2]) / 1000)}
end
if used > 0 then
  redis.call('HINCRBY', KEYS[2], 'count', count)
else
  redis.call('HSET', KEYS[2], 'sec', sec, 'count', count)
  redis.call('PEXPIRE', KEYS[2], 10000)
end
return {'OK'}
