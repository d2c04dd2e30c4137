-- lock-acquire.lua: takes a refill lock (of a segment tag, a serial stock or an ID pool) for one owner token, unless
-- someone holds it.
--
-- KEYS[1]  the lock: a string holding '<token>|<identity>', expiring after ttlMs; it shares the hash tag of the keys
--          it guards, so scripts that check the token run on the same Redis Cluster node
-- ARGV[1]  token  random token of this refill attempt
-- ARGV[2]  ttlMs  how long the lock lives if its owner never releases it
-- Reply: 1 when taken (free, or held under another identity), 0 when another owner holds it.
--
-- Why the identity in the value: every script that writes under the lock accepts it only as
-- '<token>|<identity now>' (lock-release.lua compares the token alone: deleting its own lock is always safe).
-- A restart from a snapshot (or append-only file) within the lock's ttl brings the lock back, but under a new
-- identity; its holder may have reserved its range before a data loss that came in between, while others installed
-- and handed out higher numbers. Such a lock is nobody's: its range is refused (NOT_OWNER, a gap), never installed
-- behind newer numbers; the next acquire replaces it.

-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

local identity = server_identity()
local value = ARGV[1] .. '|' .. identity
if redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2]) then
  return 1
end
-- A lock stamped with another identity guards nothing (every check refuses it), so it is replaced rather than left
-- to block refills until it expires, just when the stock it guarded may be gone. A value without a stamp is an
-- older version's lock and is left alone.
local held = redis.call('GET', KEYS[1])
if held then
  local bar = string.find(held, '|', 1, true)
  if bar and string.sub(held, bar + 1) ~= identity then
    redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
    return 1
  end
end
return 0
