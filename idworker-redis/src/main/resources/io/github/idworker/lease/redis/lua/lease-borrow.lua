-- lease-borrow.lua: claims one free or expired worker id (slot) of a namespace in one atomic step,
-- judged by the Redis clock. Never a counter taken modulo the slot count.
--
-- KEYS (all share the hash tag {<prefix>:<namespace>}, so the script runs on Redis Cluster):
--   KEYS[1]  lease    hash of the namespace, the only key idworker writes:
--                       id, run_id, floor, guard, ms   the data generation marker
--                       layout                         the identifier layout pinned at the first borrow
--                       slots_created                  slots 0 .. slots_created-1 have been claimed before
--                       <slot id>                      "highWater|expires|owner|info" of one slot; owner is
--                                                      empty while the slot is free
--   KEYS[2]  owner    hash slot -> owner, of idworker versions before the single lease hash (read only)
--   KEYS[3]  expires  hash slot -> lease end, of those versions (read only)
-- ARGV:
--   ARGV[1]  slotCount     slots 0 .. slotCount-1
--   ARGV[2]  owner         the borrower's owner token (no '|')
--   ARGV[3]  ttlMs         lease length
--   ARGV[4]  workerNowMs   the borrower's clock
--   ARGV[5]  maxSkewMs     largest tolerated worker/Redis clock difference
--   ARGV[6]  info          host, pid and start time of the borrower
--   ARGV[7]  layout        the borrower's identifier layout
--   ARGV[8]  lossGuardMs   the borrower's loss guard (idworker.lease.loss-guard), at least ttlMs + maxSkewMs;
--                          a caller that sends none gets ttlMs + maxSkewMs
--   ARGV[9]  preferredSlot the only slot this borrow may claim (idworker.worker-id.*), or -1 / absent: any
-- Reply:
--   {'OK', slot, floor, highWater, generationId, policy}  floor = the slot's effective high-water before the
--                                                         claim; policy = this server's maxmemory-policy
--   {'EXHAUSTED', policy}                                 every slot is held by a live lease
--   {'RETRY'}                                             the generation started in this millisecond
--   {'LAYOUT', pinnedLayout}                              the namespace is pinned to another layout
--   {'GUARD', storedGuardMs}                              the namespace keeps a larger loss guard than ARGV[8]
--   {'OLD_LEASES', count}                                 live leases of an older idworker are in KEYS[2..3]
--   {'AHEAD', redisNowMs}                                 workerNowMs is more than maxSkewMs ahead of Redis
--   {'TAKEN', info}                                       the preferred slot is held by a live lease; info
--                                                         says who holds it (host, pid, start)
--   {'PREFERRED', slotCount}                              ARGV[9] is no slot id 0 .. slotCount-1
-- Nothing is written for PREFERRED, LAYOUT, GUARD, OLD_LEASES and AHEAD; TAKEN writes only what steps 1 and 2
-- write.
--
-- Why one hash: a generation marker and the data it protects must not be lost separately (DESIGN rule 9).
-- Eviction, a DEL or a restart without persistence removes marker, layout, counter and slots at once, and a
-- missing marker starts a new generation below. A slot whose record alone is missing (an HDEL by hand) is
-- recognised by slots_created: its id lies below the counter, so it held leases before.
--
-- Steps:
--   0. Preferred slot and clock. A preferred slot outside 0 .. slotCount-1 answers PREFERRED before anything is
--      written, whatever the caller checked: one at or above the count would be claimed as a never-claimed slot,
--      with a free record for every id up to it, and its worker id would not fit the layout's worker bits.
--      Clock: a borrower whose clock is more than maxSkew ahead of Redis is refused (AHEAD) before anything is
--      written: its high-waters (its clock + ttl) could exceed now + ttl + maxSkew, the bound every floor after a
--      loss relies on (DESIGN rule 13).
--   1. Layout: a stored layout other than ARGV[7] answers LAYOUT; a marker whose guard is larger than ARGV[8]
--      answers GUARD (a namespace's loss guard never shrinks: floors after a loss would fall below high-waters of
--      its other workers; across a loss it cannot be told). Live leases in the old keys answer
--      OLD_LEASES: workers of both versions would hand out the same slots.
--   2. Generation: when the marker is missing or was written by another Redis process (restart, stale
--      snapshot, failover), a new generation starts at Redis time ms with floor = max(old floor + 1,
--      ms + guard), where guard is the largest loss guard any borrower of the namespace asked for (kept in
--      the marker; this borrower's own when the marker is gone). Every borrower's ttl + maxSkew is at most its
--      loss guard, and the workers of a namespace share one, so it covers holders with a longer ttl than this one. A missing layout is stored here, and a
--      missing slots_created: 0 for a new or lost namespace (above any slot field left in it), every slot when
--      the marker survived without it.
--   3. Effective high-water of a slot: max(its high-water, generation floor); for a slot below slots_created
--      whose record is missing or unreadable, max(generation floor, now + guard), as if its data were lost now.
--      Slots from slots_created up were never claimed: the generation floor.
--   4. Claim: among claimable slots (no record, no owner, or lease ended before now) the lowest one whose
--      effective high-water is below the borrower's clock, else the one with the lowest effective high-water.
--      A slot never claimed is always slots_created itself, which the claim then raises by one. The record
--      becomes hw = max(floor + 1, workerNow + ttl), expires = now + ttl, owner, info; for a lost record
--      hw = max(floor, workerNow + ttl), so the holder may have to renew before it issues.
--   4'. Claim of a preferred slot p (ARGV[9]): p alone is the candidate. Below slots_created it is claimed as in
--      step 4 when claimable, else TAKEN. At or above slots_created it is claimed as a never-claimed slot, and the
--      slots slots_created .. p-1 get free records with the generation floor as high-water (what a never-claimed
--      slot's effective high-water is, so they stay as good as never claimed and are not taken for lost);
--      slots_created becomes p + 1.
--
-- Why that floor suffices: every high-water stored at Redis time t is at most t + ttl + maxSkew <= t + guard of
-- its holder (and the namespace's guard only grows while it is kept), because worker clocks
-- more than maxSkew ahead of Redis are refused (step 0 here, and lease-renew.lua for renewals):
--   * renew stores at most the holder's clock + ttl;
--   * return stores the last issued timestamp, at most the holder's clock;
--   * borrow stores max(floor + 1, workerNow + ttl), not floor + 1 + ttl: when the floor is ahead the borrower
--     waits for its clock to pass it anyway and renews from there. A floor ahead of now is either a generation
--     floor, started in an earlier millisecond (hence RETRY), so floor + 1 <= now + guard, or the high-water of
--     an expired lease, at most maxSkew ahead once its ttl has passed, or a lost record's floor of now + guard,
--     which is stored without the + 1 (a lost record may have been written in this very millisecond, so its
--     floor cannot be set in an earlier one like a generation's).
-- A generation started, or a lost record found, at Redis time t' >= t therefore has a floor >= t + guard, at or
-- above every high-water a holder stored before; and a holder of an older generation or a lost record is
-- never renewed again.

-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica
-- (it may have lagged) -- also when a demoted master that resynced from its successor is promoted back, whose
-- run_id alone would not have changed. Data stamped with another identity may have gone back in time. A plain
-- find, not a pattern: this runs on every call.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local function num(n)
  return string.format('%.0f', n)
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local slot_count = tonumber(ARGV[1])
local owner = ARGV[2]
local ttl = tonumber(ARGV[3])
local worker_now = tonumber(ARGV[4])
local skew = tonumber(ARGV[5])
local layout = ARGV[7]
local loss_guard = tonumber(ARGV[8]) or (ttl + skew)
local preferred = tonumber(ARGV[9] or '') or -1

-- 0. a preferred slot that is no slot of the namespace: refuse before writing anything
if preferred ~= -1 and (preferred < 0 or preferred >= slot_count or preferred ~= math.floor(preferred)) then
  return {'PREFERRED', num(slot_count)}
end

-- 0. a worker clock ahead of Redis by more than maxSkew: refuse before writing anything
if worker_now > now_ms + skew then
  return {'AHEAD', num(now_ms)}
end

local lease = {}
local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do
  lease[flat[i]] = flat[i + 1]
end

-- 1. layout and leases of the old key layout
if lease.layout and lease.layout ~= layout then
  return {'LAYOUT', lease.layout}
end
if lease.id and (tonumber(lease.guard) or 0) > loss_guard then
  return {'GUARD', lease.guard}
end
local old_owners = redis.call('HGETALL', KEYS[2])
if #old_owners > 0 then
  local live = 0
  for i = 1, #old_owners, 2 do
    if (tonumber(redis.call('HGET', KEYS[3], old_owners[i])) or 0) >= now_ms then
      live = live + 1
    end
  end
  if live > 0 then
    return {'OLD_LEASES', live}
  end
end

-- 2. generation
local run_id = server_identity()
local guard = math.max(tonumber(lease.guard) or 0, loss_guard)
local marker_found = lease.id ~= nil
local gen_id, gen_floor, gen_ms
if marker_found and lease.run_id == run_id then
  gen_id, gen_floor, gen_ms = lease.id, tonumber(lease.floor) or 0, tonumber(lease.ms) or 0
  if guard > (tonumber(lease.guard) or 0) then
    redis.call('HSET', KEYS[1], 'guard', num(guard))
  end
else
  gen_floor = now_ms + guard
  local old_floor = tonumber(lease.floor)
  if old_floor and old_floor + 1 > gen_floor then
    gen_floor = old_floor + 1
  end
  gen_id = time[1] .. string.format('%06d', tonumber(time[2]))
  gen_ms = now_ms
  redis.call('HSET', KEYS[1], 'id', gen_id, 'run_id', run_id, 'floor', num(gen_floor), 'guard', num(guard),
      'ms', num(now_ms))
end
if not lease.layout then
  redis.call('HSET', KEYS[1], 'layout', layout)
end
local created = tonumber(lease.slots_created)
if created == nil then
  if marker_found then
    -- the counter alone was deleted by hand: count every slot as claimed before
    created = slot_count
  else
    -- a new or lost namespace; slot fields left by hand stay below the counter
    created = 0
    for field in pairs(lease) do
      local slot = tonumber(field)
      if slot and slot >= created then
        created = slot + 1
      end
    end
  end
  redis.call('HSET', KEYS[1], 'slots_created', num(created))
end
if now_ms <= gen_ms then
  return {'RETRY'}
end

local policy = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:([%w%-]+)') or ''

-- 3. and 4. effective high-waters and the claim
local lost_floor = math.max(gen_floor, now_ms + guard)

local chosen, chosen_hw, chosen_lost
local is_new = false
if preferred >= 0 then
  if preferred < created then
    local record = lease[tostring(preferred)]
    local hw, expires, holder, info
    if record then
      hw, expires, holder, info = string.match(record, '^(%-?%d+)|(%-?%d+)|([^|]*)|(.*)$')
    end
    if hw == nil then
      chosen, chosen_hw, chosen_lost = preferred, lost_floor, true
    elseif holder == '' or tonumber(expires) < now_ms then
      chosen, chosen_hw = preferred, math.max(tonumber(hw), gen_floor)
    else
      return {'TAKEN', info or ''}
    end
  else
    for slot = created, preferred - 1 do
      redis.call('HSET', KEYS[1], tostring(slot), num(gen_floor) .. '|0||')
    end
    -- claimed as the never-claimed slot at the counter, which the claim below raises past it
    chosen, chosen_hw, chosen_lost, is_new = preferred, gen_floor, false, true
    created = preferred
  end
else
  for slot = 0, math.min(created, slot_count) - 1 do
    local record = lease[tostring(slot)]
    local hw, expires, holder
    if record then
      hw, expires, holder = string.match(record, '^(%-?%d+)|(%-?%d+)|([^|]*)|')
    end
    local eff, lost
    if hw == nil then
      eff, lost = lost_floor, true
    elseif holder == '' or tonumber(expires) < now_ms then
      eff = math.max(tonumber(hw), gen_floor)
    end
    if eff then
      if eff < worker_now then
        chosen, chosen_hw, chosen_lost = slot, eff, lost
        break
      end
      if chosen == nil or eff < chosen_hw then
        chosen, chosen_hw, chosen_lost = slot, eff, lost
      end
    end
  end
  if created < slot_count and (chosen == nil or chosen_hw >= worker_now) then
    if chosen == nil or gen_floor < chosen_hw or gen_floor < worker_now then
      chosen, chosen_hw, chosen_lost, is_new = created, gen_floor, false, true
    end
  end
end

if chosen == nil then
  return {'EXHAUSTED', policy}
end

-- a lost record's floor is now + guard of this very call: one more would exceed what a write may store now
local high_water = math.max(chosen_lost and chosen_hw or chosen_hw + 1, worker_now + ttl)
redis.call('HSET', KEYS[1], tostring(chosen),
    num(high_water) .. '|' .. num(now_ms + ttl) .. '|' .. owner .. '|' .. ARGV[6])
if is_new then
  redis.call('HSET', KEYS[1], 'slots_created', num(created + 1))
end
return {'OK', chosen, chosen_hw, high_water, gen_id, policy}
