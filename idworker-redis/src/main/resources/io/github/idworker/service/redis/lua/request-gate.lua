-- request-gate.lua: the request gate's steps, a library, never run alone: request-admit.lua and request-admit-take.lua
-- (LuaScript.compose) put it in front of their own part. It reads the gate's keys and arguments where
-- request-admit.lua's header names them, KEYS[1..3] and ARGV[1..6]; every script that uses it puts them first.
-- The gate's guarantees are request-admit.lua's; this library holds its steps once for both scripts.

-- The start (epoch ms, Redis clock) of this Redis's identity for this application, after writing the marker. Runs
-- only when there is no marker (a new application, or one whose keys were all lost) or a marker of another identity
-- (this Redis restarted, with or without persistence: a restarted master always draws a new id; a replica was
-- promoted; or a resharding moved the slot here from another node, marker and nonces together).
-- When this Redis never was a replica since it started (master_replid2 all zeros), nothing of its data was lost
-- since its process started: every nonce it recorded since then is still here, and every nonce lost with an earlier
-- incarnation was recorded before this process started. So the identity starts at the process start, rounded up a
-- second (uptime_in_seconds is truncated: the start is never taken earlier than the real one), and a restart
-- refuses calls for at most the guard after it, for every application alike, however late its first call comes. A
-- foreign marker keeps its own start when that is later: after a resharding its identity vouched for the nonces
-- only since then (on the node the slot came from), so calls stamped before it plus the guard stay refused here too.
-- After a promotion (master_replid2 set) this Redis may lack the last writes of the master it replaced, at any time
-- before now: the identity starts now.
local function gate_epoch(info, identity, now, epoch)
  local start = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
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
  return start
end

-- The gate's checks, in their order: the identity's start, the nonce (recorded here, with SET NX, whenever the call
-- gets that far: it was authentic), the entity, the rate. Returns the refusal reply, or nil and the IDs this
-- second already holds when the call may be counted; it counts nothing: gate_count does, once the caller's own
-- steps passed too. identity is master_replid of info; now is TIME's reply.
local function gate_admit(info, identity, now)
  local epoch = redis.call('HMGET', KEYS[3], 'id', 'start')
  local start = tonumber(epoch[2])
  if epoch[1] ~= identity or not start then
    start = gate_epoch(info, identity, now, epoch)
  end
  if tonumber(ARGV[5]) < start + tonumber(ARGV[6]) then
    return {'RESET'}
  end
  -- SET NX first: of two calls carrying one nonce exactly one gets past this line, on whichever instance
  if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
    return {'REPLAY'}
  end
  if ARGV[2] ~= '1' then
    return {'FORBIDDEN'}
  end
  -- the second as TIME gives it, compared as text: the hash holds it in the same form
  local r = redis.call('HMGET', KEYS[2], 'sec', 'count')
  local used = 0
  if r[1] == now[1] then
    used = tonumber(r[2])
  end
  if used + tonumber(ARGV[3]) > tonumber(ARGV[4]) then
    return {'RATE', 1000 - math.floor(tonumber(now[2]) / 1000)}
  end
  return nil, used
end

-- Counts the admitted call's IDs in this second: used is what gate_admit returned (0 when the second is new).
local function gate_count(now, used)
  if used > 0 then
    redis.call('HINCRBY', KEYS[2], 'count', ARGV[3])
  else
    redis.call('HSET', KEYS[2], 'sec', now[1], 'count', ARGV[3])
    redis.call('PEXPIRE', KEYS[2], 10000)
  end
end
