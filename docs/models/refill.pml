/*
 * refill.pml -- the three refill protocols of the shape "reserve durably in the database, then install above the
 * high-water in Redis, under a lock", model-checked by SPIN. One model, one protocol per run:
 *   -DSEGMENT  the Redis sequence: segment-next.lua, segment-install.lua (current range), RedisSegmentRefill
 *   -DSERIAL   the strict serial stock: serial-take.lua, serial-install.lua, SerialStockRefiller
 *   -DPOOL     the ID pool (MONOTONIC): pool-take.lua, pool-append.lua, PoolRefiller
 * The three share the lock (owner-token SET NX PX stamped with the Redis identity, compare-and-delete), the
 * database reservation and the Redis identity (master_replid); they differ only in the install and take steps,
 * written apart below.
 *
 * Safety property: every number handed out is larger than every number handed out before it, by any node
 * (strictly increasing in arrival order: DESIGN 5, 6 and 7 MONOTONIC), hence never handed out twice.
 *
 * One Redis fault per run, a loss or a stale restore; -DDOUBLE_REDIS_FAULT allows both in one run (the README's
 * finding: a restore within a lock's ttl brought back a lock taken before a loss; fixed by the identity stamp).
 *
 * Actors: two nodes (each a taker and a refiller, one refill at a time), the database row (its offset), Redis
 * (stock, high-water, identity, lock), and an environment that moves time and injects faults: Redis loses its
 * data (restart without persistence), Redis restarts from an older snapshot (a new identity with old data),
 * the database row is moved back by one step (a restore from a backup; -DFAULT_DBBACK, SEGMENT and SERIAL only:
 * the pool table refuses it, commit c6c1539). A refiller may stall between any two of its steps, past its lock.
 *
 * Switches that restore holes (SPIN must then find a counterexample):
 *   -DNO_LOCK_CHECK      the install does not check the lock token
 *   -DNO_INSTALL_ABOVE   the install does not check that the range lies above Redis's high-water
 *   -DNO_RUN_ID_CHECK    takes serve a stock stamped by another Redis identity (commit e91b3b6)
 *   -DNO_LOCK_IDENTITY   the lock holds the bare token, not token|identity (before commit 1d863e0): a lock a
 *                        restore brought back is still its holder's
 */

#ifndef TMAX
#define TMAX   5      /* last instant */
#endif
#define LTTL   2      /* refill lock ttl: the lock lives while T < its expiry */
#define STEP   2      /* numbers per reservation */
#ifndef MAXREF
#define MAXREF 3      /* reservations (lock tokens) in one run */
#endif

byte T = 0;

/* ---- the database row: its offset (max_id / reserved high-water / current_offset) ---- */
byte off = 0;

/* ---- Redis ---- */
byte rid = 1;          /* this Redis process's identity (INFO replication master_replid) */
bool has = 0;          /* the stock's hash exists (SEGMENT v_l/v_h, SERIAL lo/hi, POOL meta with hw) */
byte sid;              /* the identity that stamped it (run_id field) */
byte lo, hi;           /* numbers lo+1 .. hi are in stock (SEGMENT v_l, v_h; SERIAL lo, hi; POOL the list) */
#ifdef POOL
byte gapLo, gapHi;     /* POOL: a list may hold a gap lo < gapLo+1 .. gapHi < hi of numbers never appended */
bool hwKnown;          /* POOL: meta.hw present */
#endif
byte lock, lockEx;     /* the refill lock: token (0 = none) and expiry */
byte lockId;           /* ... and the identity stamped into its value (lock-acquire.lua: token .. '|' .. identity) */

/* ---- snapshot, for the stale restore ---- */
#ifdef FAULT_DBBACK
bool redisFault = 1;   /* a row moved back and a Redis fault together are not detected (README: what it does not prove) */
bool snapTaken, lossDone, restoreDone, dbBack;
#else
bool snapTaken, redisFault, lossDone, restoreDone, dbBack;
#endif
#ifdef DOUBLE_REDIS_FAULT
#define DOUBLE true
#else
#define DOUBLE false
#endif
bool snHas; byte snSid, snLo, snHi, snLock, snLockEx, snLockId;
#ifdef POOL
byte snGapLo, snGapHi; bool snHwKnown;
#endif

/* ---- the nodes ---- */
byte tok = 0;          /* last lock token handed out */
byte ph[2];            /* 0 idle, 1 holds a token (maybe the lock), 2 reserved a range; POOL: 3 seeding, 4 seed refused */
byte myTok[2], ra[2], rb[2];   /* token; the reserved range ra+1 .. rb */
#ifdef POOL
byte seedTry[2];       /* POOL: seed attempts made (PoolRefiller.seed: at most 2) */
#endif

/* ---- the property ---- */
byte maxIssued = 0;
unsigned issued : 12;  /* numbers 1 .. 12 handed out so far, one bit each */

inline issue(x) {
  printf("T=%d node %d takes %d\n", T, _pid - 2, x);
  assert((issued & (1 << (x - 1))) == 0);   /* never twice */
  issued = issued | (1 << (x - 1));
  assert(x > maxIssued);                    /* strictly increasing across both nodes */
  maxIssued = x
}

#define LOCKED (lock != 0 && T < lockEx)
/* the scripts' lock check: GET lock == ARGV token .. '|' .. server_identity() (segment-install.lua L48-51,
   serial-install.lua L43-46, pool-append.lua L61-63, lock-release.lua L18); without the stamp, GET == token */
#ifdef NO_LOCK_IDENTITY
#define OWNS(w) (lock == myTok[w] && LOCKED)
#else
#define OWNS(w) (lock == myTok[w] && lockId == rid && LOCKED)
#endif
/* lock-acquire.lua: a lock stamped with another identity is replaced; without the stamp no lock can be told stale */
#ifdef NO_LOCK_IDENTITY
#define STALE_LOCK false
#else
#define STALE_LOCK (lockId != rid)
#endif
/* lock-release.lua: compare-and-delete on the token alone (a lock brought back under another identity is still
   this refiller's to delete: nobody else's) */
#define RELEASES(w) (lock == myTok[w] && LOCKED)
/* the install's lock check passes (always, without the check) */
#ifdef NO_LOCK_CHECK
#define MINE(w) true
#else
#define MINE(w) OWNS(w)
#endif

/* ===================================== takes ===================================== */
#ifdef SEGMENT
/* segment-next.lua L35-74 (count 1, checkRun 1): MISSING / MISSING run_id / EXHAUSTED, else HINCRBY v_l 1 */
#ifdef NO_RUN_ID_CHECK
#define TAKEABLE (has && hi > lo)
#else
#define TAKEABLE (has && sid == rid && hi > lo)
#endif
inline take() { lo++; issue(lo) }
#endif

#ifdef SERIAL
/* serial-take.lua L32-66 (count 1): MISSING / MISSING run_id / SHORT, else HINCRBY lo 1 */
#ifdef NO_RUN_ID_CHECK
#define TAKEABLE (has && hi > lo)
#else
#define TAKEABLE (has && sid == rid && hi > lo)
#endif
inline take() { lo++; issue(lo) }
#endif

#ifdef POOL
/* pool-take-steps.lua L9-51 (count 1): a pool stamped by another identity is dropped (RESET, L11-16), else LPOP */
#ifdef NO_RUN_ID_CHECK
#define TAKEABLE (has && hi > lo)
#else
#define TAKEABLE (has && sid == rid && hi > lo)   /* a foreign stamp is RESET first, below */
#endif
inline take() {
  lo++;
  if :: lo > gapLo && lo <= gapHi -> lo = gapHi + 1 :: else fi;   /* the numbers of a gap were never appended */
  issue(lo)
}
/* pool-take-steps.lua L11-16: a missing or foreign stamp: DEL list and meta, stamp anew */
#define RESETTABLE (sid != rid)
inline reset() { has = 0; lo = 0; hi = 0; gapLo = 0; gapHi = 0; hwKnown = 0; sid = rid }
#endif

/* ============================ install (the refill's last step) ============================ */
#ifdef SEGMENT
/* segment-install.lua L48-73, where = 'current' (RedisSegmentRefill.refillUntilIssued L111 -> L276) */
inline install(w) {
  if
#ifndef NO_LOCK_CHECK
  :: !OWNS(w) -> skip                                        /* L48-51 NOT_OWNER: a gap */
#endif
#ifndef NO_INSTALL_ABOVE
  :: MINE(w) && has && ra[w] < hi -> skip    /* L52-59 BELOW: a gap */
#endif
  :: else -> has = 1; lo = ra[w]; hi = rb[w]; sid = rid      /* L68-72: the current range, this identity */
  fi
}
#endif

#ifdef SERIAL
/* serial-install.lua L43-72 (SerialStockRefiller) */
inline install(w) {
  if
#ifndef NO_LOCK_CHECK
  :: !OWNS(w) -> skip                                        /* L43-46 NOT_OWNER */
#endif
#ifndef NO_INSTALL_ABOVE
  :: MINE(w) && has && sid == rid && ra[w] + 1 <= hi -> skip   /* L56-58 BELOW */
#endif
  :: else ->
       if
       :: has && sid == rid && ra[w] == hi -> hi = rb[w]     /* L59-61 EXTENDED */
       :: else -> has = 1; lo = ra[w]; hi = rb[w]; sid = rid /* L64-67 REPLACED */
       fi
  fi
}
#endif

#ifdef POOL
/* pool-append.lua L52-111, mode APPEND (PoolRefiller.append) */
inline install(w) {
  if
  :: sid != rid -> reset()                                   /* L52-58 RESET: nothing appended */
#ifndef NO_LOCK_CHECK
  :: sid == rid && !OWNS(w) -> skip                          /* L61-63 LOCK */
#endif
  :: sid == rid && MINE(w) && !hwKnown -> skip   /* L94-96 SEED first: a gap */
#ifndef NO_INSTALL_ABOVE
  :: sid == rid && MINE(w) && hwKnown && ra[w] + 1 <= hi -> skip  /* L97-99 STALE */
#endif
  :: else ->                                                 /* L104-110: RPUSH, hw = highest */
       if
       :: hi > lo && ra[w] > hi -> gapLo = hi; gapHi = ra[w]  /* a gap between the list and the chunk */
       :: hi <= lo -> lo = ra[w]; gapLo = 0; gapHi = 0        /* an empty list: the chunk alone */
       :: else
       fi;
       hi = rb[w]; has = 1
  fi
}
#endif

proctype Node(byte w) {
end:
  do
  /* a take; the reply that finds nothing to take drives a refill, below */
  :: atomic { TAKEABLE -> take() }
#ifdef POOL
#ifndef NO_RUN_ID_CHECK
  :: atomic { RESETTABLE -> reset() }                        /* pool-take-steps.lua L11-16 */
#endif
#endif
  /* the refill: take the lock, SET NX PX with a fresh token (RedisSegmentRefill L102-103, SerialStockRefiller,
     PoolRefiller), or SET PX over a lock stamped with another identity (lock-acquire.lua: nobody's lock, every
     check refuses it); a refiller that does not get it waits for the other's range */
  :: atomic { ph[w] == 0 && tok < MAXREF && (!LOCKED || STALE_LOCK) ->
       tok++; myTok[w] = tok; lock = tok; lockEx = T + LTTL; ph[w] = 1;
       lockId = rid;                                          /* lock-acquire.lua: token .. '|' .. identity */
       printf("T=%d node %d takes the lock (token %d, until %d)\n", T, w, tok, lockEx) }
#ifdef POOL
  /* PoolRefiller.reconcile under the lock: a list whose high-water lies below the database's offset is dropped
     (pool-append.lua DROP, L82-87, commit 972d487; after the RESET and lock checks, L52-63) */
  :: atomic { ph[w] == 1 && sid == rid && OWNS(w) && hwKnown && hi < off -> lo = off; hi = off; gapLo = 0; gapHi = 0 }
#endif
  /* reserve in the database, durably, before anything enters Redis (one UPDATE ... + read back, or the pool's
     compare-and-set); the lock may have expired meanwhile: the database does not know the lock */
  :: atomic { ph[w] == 1 -> ra[w] = off; rb[w] = off + STEP; off = off + STEP; ph[w] = 2;
#ifdef POOL
       /* PoolRefiller.refill: pool-inspect.lua's state (OK only for this identity's stamp with a known hw), read
          under the lock right before the reservation; not OK: seed first, below */
       if :: !(sid == rid && hwKnown) -> ph[w] = 3 :: else fi;
#endif
       printf("T=%d node %d reserves %d..%d in the database\n", T, w, ra[w] + 1, rb[w]) }
#ifdef POOL
  /* PoolRefiller.seed: pool-append.lua SEED with hw = the ID right below the reservation; a RESET reply (the pool
     was stamped by another identity: L52-58 dropped it and stamped it anew) is tried once more, any other refusal
     (LOCK, L61-63) leaves the reservation unused, a gap; L88-93 sets hw only when unknown */
  :: atomic { ph[w] == 3 ->
       if
       :: sid != rid -> reset(); seedTry[w]++;
            if :: seedTry[w] == 2 -> ph[w] = 4 :: else fi      /* two RESETs: give up, a gap */
       :: sid == rid && !MINE(w) -> ph[w] = 4                    /* LOCK: a gap */
       :: sid == rid && MINE(w) ->
            if :: !hwKnown -> hwKnown = 1; has = 1; lo = ra[w]; hi = ra[w]; gapLo = 0; gapHi = 0 :: else fi;
            ph[w] = 2;
            printf("T=%d node %d seeds the high-water at %d\n", T, w, ra[w])
       fi }
  /* a refused seed: release the lock (lock-release.lua), the reservation is a gap */
  :: atomic { ph[w] == 4 -> if :: RELEASES(w) -> lock = 0; lockEx = 0 :: else fi;
       ph[w] = 0; myTok[w] = 0; ra[w] = 0; rb[w] = 0; seedTry[w] = 0 }
#endif
  /* install, at any later time (a stalled refiller), then release the lock by compare-and-delete */
  :: atomic { ph[w] == 2 -> install(w);
       printf("T=%d node %d installs %d..%d: stock now %d..%d\n", T, w, ra[w] + 1, rb[w], lo + 1, hi);
       /* lock-release.lua: compare the token (whatever the identity) and delete */
       if :: RELEASES(w) -> lock = 0; lockEx = 0 :: else fi;
#ifdef POOL
       seedTry[w] = 0;
#endif
       ph[w] = 0; myTok[w] = 0; ra[w] = 0; rb[w] = 0 }
  od
}

proctype Env() {
end:
  do
  :: atomic { T < TMAX -> T++;
       if :: lock != 0 && T >= lockEx -> lock = 0; lockEx = 0; lockId = 0 :: else fi }   /* the lock key expires */
  /* Redis loses its data: a restart without persistence (a new identity, nothing kept) */
  :: atomic { !lossDone && (!redisFault || DOUBLE) -> redisFault = 1; lossDone = 1; rid++;
       printf("T=%d Redis restarts empty\n", T); has = 0; lo = 0; hi = 0; sid = 0; lock = 0; lockEx = 0; lockId = 0;
#ifdef POOL
       gapLo = 0; gapHi = 0; hwKnown = 0
#else
       skip
#endif
     }
  /* a snapshot (BGSAVE) now; later a restart that loads it: a new identity, the old data; a lock key past its
     expiry is not loaded */
  :: atomic { !snapTaken -> snapTaken = 1; printf("T=%d snapshot\n", T); snHas = has; snSid = sid; snLo = lo; snHi = hi; snLock = lock;
       snLockEx = lockEx; snLockId = lockId;
#ifdef POOL
       snGapLo = gapLo; snGapHi = gapHi; snHwKnown = hwKnown
#else
       skip
#endif
     }
  :: atomic { snapTaken && !restoreDone && (!redisFault || DOUBLE) -> redisFault = 1; restoreDone = 1; rid++;
       printf("T=%d Redis restarts from the snapshot\n", T); has = snHas; sid = snSid; lo = snLo; hi = snHi;
       /* the lock key comes back with the identity stamped in its value: the old one, not rid */
       if :: snLock != 0 && T < snLockEx -> lock = snLock; lockEx = snLockEx; lockId = snLockId
          :: else -> lock = 0; lockEx = 0; lockId = 0 fi;
#ifdef POOL
       gapLo = snGapLo; gapHi = snGapHi; hwKnown = snHwKnown
#else
       skip
#endif
     }
#ifdef FAULT_DBBACK
  /* the database row is moved back by one step (restored from a backup) */
  :: atomic { !dbBack && off >= STEP -> dbBack = 1; off = off - STEP;
       printf("T=%d the database row is moved back to %d\n", T, off) }
#endif
  od
}

init {
  atomic { run Env(); run Node(0); run Node(1) }
}
