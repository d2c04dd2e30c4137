-- pool-take.lua: takes count IDs from the head of one entity's pool, all or nothing, within the entity's rate limit.
-- Redis runs one script at a time, so takes are ordered the way they arrive, across all clients. Its steps are
-- pool-take-steps.lua's, composed with redis-identity.lua in front of this part; request-admit-take.lua runs them
-- behind the request gate.
--
-- KEYS (all share the hash tag {<prefix>:pool:<entity>}, so the script runs on Redis Cluster):
--   KEYS[1]  ids   list of IDs, in the order they are handed out
--   KEYS[2]  meta  hash {run_id, hw, env}: run_id = the identity of the Redis that holds the pool, hw = the largest
--                  ID ever appended (absent until a refiller seeded it from the database), env = the environment
--                  split 'e/E' of the IDs in the list
--   KEYS[3]  rate  hash {sec, count, prev}: IDs taken in second sec (Redis clock), and in the second before it
-- ARGV:
--   ARGV[1]  count         IDs to take, at least 1
--   ARGV[2]  maxPerSecond  the entity's limit across all nodes
--   ARGV[3]  env           the caller's environment split 'e/E'
-- Reply:
--   {'OK', left, {id, ...}}      count IDs, removed from the pool; left remain
--   {'RATE', waitMs, used}       count more would pass maxPerSecond in this second; nothing taken
--   {'EMPTY', level, rate}       fewer than count IDs in the pool; nothing taken; rate = IDs of the last second
--   {'ENV', env}                 the list holds IDs of another environment split; nothing taken
--   {'RESET'}                    the pool was written by another Redis (restart, restored snapshot, fail-over): it
--                                may hold IDs already handed out, so it was dropped; nothing taken
--
-- Common path: INFO replication, TIME, HMGET meta, HMGET rate, LLEN, LPOP, HINCRBY (seven calls).

local _, identity, now = identity_and_time()
return pool_take(identity, now, KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])
