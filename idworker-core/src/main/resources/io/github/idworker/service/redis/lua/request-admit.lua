-- request-admit.lua: admits one signed call to the ID service for one application, atomically across every
-- instance sharing this Redis: records its nonce (refusing a replay), checks the entity is allowed, counts the IDs
-- against the application's own limit.
--
-- KEYS (both share the hash tag {<prefix>:app:<appKey>}, so the script runs on Redis Cluster):
--   KEYS[1]  nonce  string, present while the call's timestamp can still pass on some instance
--   KEYS[2]  rate   hash {sec, count}: IDs admitted in second sec (Redis clock)
-- ARGV:
--   ARGV[1]  nonceTtlMs    how long to keep the nonce, at least 1
--   ARGV[2]  allowed       1 when the application may take from the entity, else 0
--   ARGV[3]  count         IDs asked for
--   ARGV[4]  maxPerSecond  the application's limit across all instances
-- Reply:
--   {'OK'}             admitted: the nonce is recorded, count is added to this second's IDs
--   {'REPLAY'}         the nonce was recorded before; nothing changed
--   {'FORBIDDEN'}      the nonce is recorded (the call was authentic), nothing counted
--   {'RATE', waitMs}   the nonce is recorded, nothing counted; the window closes in waitMs

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

-- SET NX first: of two calls carrying one nonce exactly one gets past this line, on whichever instance
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', tonumber(ARGV[1])) then
  return {'REPLAY'}
end
if ARGV[2] ~= '1' then
  return {'FORBIDDEN'}
end

local count = tonumber(ARGV[3])
local now = redis.call('TIME')
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
