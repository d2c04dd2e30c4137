-- pool-take-steps.lua: the steps of one take from an entity's pool, a library, never run alone: pool-take.lua and
-- request-admit-take.lua (LuaScript.compose) put it in front of their own part. Its keys, arguments and replies are
-- pool-take.lua's, passed in as values, so each script places them where its header says.

-- The take's checks, in their order, each refusal taking nothing: the pool's identity stamp (a pool stamped by
-- another Redis, or by none, is dropped and stamped anew: RESET), the environment split, the rate, the level;
-- then, when all passed, after(now, arg) if given (the caller's own writes, e.g. the request gate's count) and
-- the pop with its count. Returns pool-take.lua's reply. identity is this Redis's master_replid; now is TIME's.
local function pool_take(identity, now, ids, meta, rate, count, max, env, after, arg)
  local m = redis.call('HMGET', meta, 'run_id', 'env')
  if m[1] ~= identity then
    -- a missing stamp counts as foreign too: the list beside it cannot be vouched for
    redis.call('DEL', ids, meta)
    redis.call('HSET', meta, 'run_id', identity)
    return {'RESET'}
  end
  if m[2] and env and m[2] ~= env then
    return {'ENV', m[2]}
  end
  -- the second as TIME gives it, compared as text: the hash holds it in the same form
  local r = redis.call('HMGET', rate, 'sec', 'count', 'prev')
  local used = 0
  local last = 0
  if r[1] == now[1] then
    used = tonumber(r[2])
    last = tonumber(r[3]) or 0
  elseif r[1] and tonumber(r[1]) == tonumber(now[1]) - 1 then
    last = tonumber(r[2])
  end
  if used + count > max then
    return {'RATE', 1000 - math.floor(tonumber(now[2]) / 1000), used}
  end
  -- LLEN before the pop, not a short LPOP put back: a refusal writes nothing, and the OK reply carries the level
  local level = redis.call('LLEN', ids)
  if level < count then
    return {'EMPTY', level, last}
  end
  if after then
    after(now, arg)
  end
  local popped = redis.call('LPOP', ids, count)
  if used > 0 then
    redis.call('HINCRBY', rate, 'count', count)
  else
    redis.call('HSET', rate, 'sec', now[1], 'count', count, 'prev', last)
    redis.call('PEXPIRE', rate, 10000)
  end
  return {'OK', level - count, popped}
end
