/*
 * switch.pml -- the race inside one process between the callers of AbstractIdWorker.nextId/nextIds and the lease
 * keeper's switch to another worker id (DESIGN rule 12), model-checked by SPIN.
 *
 * Safety property: no identifier (timestamp, worker id, sequence) is issued twice, by this worker's callers or by
 * another holder of a worker id. `issued` holds every identifier issued so far, one bit each. Another holder's are
 * set when they become possible, and an identifier this worker issued among them is a duplicate too:
 *   - the earlier holders of both worker ids: everything up to each lease's floor;
 *   - the next holder of a worker id whose lease expires (no lease is renewed): everything above its high-water;
 *   - the next holder of the worker id the switch returns: everything above the high-water it is returned with.
 *
 * Actors: NC caller threads (each runs nextId(), or nextIds() reserving up to the end of the millisecond), the
 * keeper thread (LeaseKeeper: one switch after a clock step back, switchAfterBackwardStep and switchWorker(true),
 * with its borrow, floor wait and return), and an environment that moves the one clock of the process forward and
 * steps it back once.
 *
 * Steps: every access to shared memory in the Java code is one step: a read of the state (AtomicLong), a read of
 * the fence (volatile), a read of the clock, a compare-and-set, a publish. What a thread computes from the values
 * it has read goes into the step of its last read, because no other thread can see it. Between any two steps any
 * other thread may run and the clock may move.
 *
 * Identifiers: states and identifiers are packed like the Java longs: timestamp << 2 | worker << 1 | sequence
 * (one worker bit, one sequence bit: two identifiers per millisecond).
 *
 * Switches, each removing one part of the protocol (check.sh runs each; "fails": SPIN finds a duplicate):
 *   -DFENCE_BITS     rule 12 removed: a new millisecond's worker bits come from the fence read, and the check
 *                    compares the candidate's bits with the fence's (as before commit 3a92da3). Fails
 *   -DFENCE_FIRST    the fence is read before the state (as before commit 3a92da3). Harmless alone; with
 *                    -DFENCE_BITS it is the code before commit 3a92da3, the build the Java kit does not catch. Fails
 *   -DKEEP_FENCE     a call reads the fence once and keeps it across its waits and failed compare-and-sets.
 *                    Harmless alone; with -DFENCE_BITS it is the broken build the Java kit catches. Fails
 *   -DNO_BITS_CHECK  the check compares only the timestamp with the fence's high-water, not the state's worker
 *                    bits with the fence's: an identifier of the new worker id passes under the old fence's
 *                    high-water. Fails
 *   -DSWAP_BY_SET    the switch sets the state it read earlier instead of a compare-and-set: the timestamp it
 *                    returns the old worker id with is not the last one issued. Fails
 *   -DPUBLISH_FIRST  the switch publishes the new fence before it swaps the state. Harmless: a caller's
 *                    compare-and-set on the old state between the two still passes the old fence's check, and the
 *                    switch's compare-and-set returns the old worker id above it
 */

#define TSHIFT  2     /* timestampShift = sequenceBits + workerBits */
#define WSHIFT  1     /* sequenceBits */
#define WFIELD  2     /* workerField */
#define SEQMASK 1     /* sequenceMask: sequences 0 and 1 */
#define ID(ts, w, s) ((ts) << TSHIFT | (w) << WSHIFT | (s))
#define TS(x) ((x) >> TSHIFT)
#define WB(x) ((x) & WFIELD)

#ifndef NC
#define NC      2     /* caller threads */
#endif
#define T0      2     /* the clock at the start; the worker's first state is (T0, worker 0, sequence 0) */
#ifndef TMAX
#define TMAX    5     /* last instant: bounded time (identifiers must fit `issued`: TMAX <= 7) */
#endif
#define BACK    2     /* the clock's step back */
#ifndef MAXBACK
#define MAXBACK 0     /* idworker.snowflake.max-backward */
#endif
#define FLOOR_A 1     /* worker id 0: the lease it starts with (floor, high-water) */
#ifndef HW_A
#define HW_A    4
#endif
#define TTL     1     /* idworker.lease.ttl: worker id 1's lease, borrowed by the switch, ends at clock + TTL */

/* the fence: 0 = worker id 0's lease, 1 = worker id 1's (Fence: workerBits, highWaterOffset) */
#define FBITS(v) ((v) << WSHIFT)
#define FHW(v)   ((v) == 0 -> HW_A : hwB)

#define max(a, b) ((a) > (b) -> (a) : (b))

byte T = T0;             /* MillisClock: the one clock of the process */
bool stepped;            /* the clock has stepped back (once in a run) */
byte state;              /* AbstractIdWorker.state */
byte fence;              /* AbstractIdWorker.fence */
byte floorB, hwB;        /* worker id 1's lease: floor (below the stepped-back clock, or ahead of it), high-water */
int issued;              /* bit ID(ts, w, s): that identifier is issued (or may be, by another holder) */
bool swReq;              /* LeaseKeeper.switchQueued */
byte swF;                /* ... and the fence it was asked for (requestSwitch(f)) */

/* scratch variables of one atomic step, never read in a later one: hidden, so not part of the state */
hidden byte clk, i;   /* clk: the clock a caller read (its `now`) */

inline issue(c, x) {
  if
  :: (issued >> (x)) & 1 ->
       printf("T=%d caller %d issues (ts %d, worker %d, seq %d): DUPLICATE\n", T, c, TS(x), WB(x) >> WSHIFT,
              (x) & SEQMASK);
       assert(false)
  :: else ->
       issued = issued | (1 << (x));
       printf("T=%d caller %d issues (ts %d, worker %d, seq %d)\n", T, c, TS(x), WB(x) >> WSHIFT, (x) & SEQMASK)
  fi
}

/* worker id w's identifiers of timestamps lo..hi count as issued by another holder: earlier ones (up to a
   floor) or later ones (above the high-water a return stores); one already issued by this worker is a duplicate */
inline claim(w, lo, hi) {
  i = lo;
  do
  :: i <= hi ->
       if
       :: (issued >> ID(i, w, 0)) & 3 ->
            printf("T=%d the next holder of worker %d may issue (ts %d, worker %d): DUPLICATE\n", T, w, i, w);
            assert(false)
       :: else -> issued = issued | (3 << ID(i, w, 0))
       fi;
       i++
  :: else -> break
  od
}

/* a fence not kept for the next round is cleared, so that stale values do not multiply states */
inline forget() {
#ifdef KEEP_FENCE
  if :: !held -> f = 0 :: else fi
#else
  f = 0
#endif
}

inline readState(c) {
  atomic { cur = state; printf("T=%d caller %d reads the state (ts %d, worker %d, seq %d)\n", T, c, TS(cur),
                                WB(cur) >> WSHIFT, cur & SEQMASK) }
}

inline readFence(c) {
#ifdef KEEP_FENCE
  if
  :: atomic { held -> printf("T=%d caller %d keeps the fence of worker %d\n", T, c, f) }   /* read before its wait */
  :: else -> atomic { f = fence; held = 1; printf("T=%d caller %d reads the fence of worker %d\n", T, c, f) }
  fi
#else
  atomic { f = fence; printf("T=%d caller %d reads the fence of worker %d\n", T, c, f) }
#endif
}

/* ============ AbstractIdWorker.nextId() L171-203 and nextIds(count) L210-250: one caller thread ============ */
proctype Caller(byte c) {
  byte cur, f, nxt, n;
  bool held;             /* -DKEEP_FENCE: this call has read its fence */
top:
#ifdef FENCE_FIRST
  readFence(c);                                                   /* before 3a92da3: Fence f = fence; */
  readState(c);                                                   /* long cur = state.get(); */
#else
  readState(c);                                                   /* L175 / L218 */
  readFence(c);                                                   /* L176 / L219 */
#endif
  atomic {
    clk = T;                                                      /* L177 / L220 */
    if
    :: clk > TS(cur) ->                                           /* L180-185 / L223-227: a new millisecond */
#ifdef FENCE_BITS
         nxt = ID(clk, 0, 0) | FBITS(f)                           /* before 3a92da3: now << shift | f.workerBits */
#else
         nxt = ID(clk, 0, 0) | WB(cur)                            /* rule 12: the bits of the state replaced */
#endif
    :: clk <= TS(cur) && TS(cur) <= clk + MAXBACK && (cur & SEQMASK) != SEQMASK ->
         nxt = cur + 1                                            /* L186-187 / L228-229 */
    :: else ->                                                    /* L188-191 / L230-233: awaitClockOrSwitch */
         if   /* a step back beyond max-backward: FenceWaits.awaitBackwardStep L90 -> LeaseKeeper.requestSwitch(f)
                 L170-174. The wait (L91-98, or awaitNextMillisecond) returns when it likes: a retry */
         :: TS(cur) > clk + MAXBACK && !swReq -> swReq = 1; swF = f;
              printf("T=%d caller %d finds the clock %d ms behind the state: asks the keeper to switch\n", T, c,
                     TS(cur) - clk)
         :: else
         fi;
         cur = 0; forget(); goto top
    fi;
    /* L193-197 / L235-239: published only when the state's worker bits are the fence's and the timestamp is
       at most the fence's high-water; else FenceWaits.awaitFence (a spin while a switch is between its two
       writes, a wait for a renewal at the high-water), then a retry */
#if defined(FENCE_BITS)
    if   /* before 3a92da3: (next >>> shift) > f.highWaterOffset || (next & workerField) != f.workerBits */
    :: WB(nxt) == FBITS(f) && TS(nxt) <= FHW(f)
#elif defined(NO_BITS_CHECK)
    if
    :: TS(nxt) <= FHW(f)
#else
    if
    :: WB(cur) == FBITS(f) && TS(nxt) <= FHW(f)
#endif
    :: else -> cur = 0; nxt = 0; forget(); goto top
    fi;
    /* nextId: one identifier; nextIds L240: as many as fit in the millisecond and the count, here 1 or 2 */
    if
    :: (nxt & SEQMASK) == 0 -> if :: n = 1 :: n = 2 fi
    :: else -> n = 1
    fi
  }
  atomic {                                                        /* L198 / L241: the compare-and-set */
    if
    :: state == cur ->
         state = nxt + n - 1;
         issue(c, nxt);
         if :: n == 2 -> issue(c, nxt + 1) :: else fi;
         held = 0                                                 /* the call returns; the next one reads anew */
    :: else
    fi;
    cur = 0; nxt = 0; n = 0; forget();
    goto top
  }
}

/* ============ LeaseKeeper: switchAfterBackwardStep L225-245 -> switchWorker(true) L252-287 ============ */
proctype Keeper() {
  byte kcur, base, last;
  /* L226-234: the request is taken off the queue; no switch when the fence changed or the step is over (the
     state and the clock are read in one step: a state read earlier is never larger, so this switches whenever
     the two reads would) */
idle:
  atomic { swReq ->
    swReq = 0;
    if
    :: fence == swF && TS(state) > T + MAXBACK -> swF = 0; printf("T=%d keeper leaves worker 0\n", T)
    :: else -> swF = 0; goto idle
    fi }
  /* L255: WorkerSlots.borrowAndWait: worker id 1 is claimed (free in the centre: nobody else takes it while this
     worker holds it), L69 waits until the clock is past its floor, and the lease ends at least TTL after that
     clock (lease-borrow.lua's high-water max(floor + 1, clock + ttl), or the extension of L86-94). Like worker
     id 0's, it is not renewed: its next holder may issue above its high-water */
  atomic { T > floorB ->
    hwB = max(floorB + 1, T + TTL);
    claim(1, hwB + 1, TMAX);
    printf("T=%d keeper borrows worker 1 (floor %d, high-water %d)\n", T, floorB, hwB) }
#ifdef PUBLISH_FIRST
  atomic { fence = 1; printf("T=%d keeper publishes the fence of worker 1\n", T) }
#endif
retry:
  kcur = state;                                                   /* L260 */
  base = max(floorB + 1, T);                                      /* L265-266; clockStepBack: no L267-269 */
  atomic {                                                        /* L274-278 */
#ifdef SWAP_BY_SET
    state = ID(base, 1, 0); last = kcur;
#else
    if
    :: state == kcur -> state = ID(base, 1, 0); last = kcur
    :: else -> goto retry
    fi;
#endif
    printf("T=%d keeper swaps the state (ts %d, worker %d, seq %d) for (ts %d, worker 1, seq 0)\n", T, TS(last),
           WB(last) >> WSHIFT, last & SEQMASK, base);
    kcur = 0 }
#ifndef PUBLISH_FIRST
  atomic { fence = 1; printf("T=%d keeper publishes the fence of worker 1\n", T) }    /* L281 */
#endif
  /* L284-285, WorkerSlots.giveBackQuietly L209-226, lease-return.lua: the old worker id goes back with the
     timestamp of the state replaced as its high-water; outside the lease it is left to expire at the lease's
     stored high-water. Either way its next holder issues above that high-water, from now on */
  atomic {
    if
    :: TS(last) >= FLOOR_A && TS(last) <= HW_A ->
         printf("T=%d keeper returns worker 0 with high-water %d\n", T, TS(last));
         claim(0, TS(last) + 1, HW_A)
    :: else -> printf("T=%d keeper leaves worker 0 to expire at high-water %d\n", T, HW_A)
    fi;
    last = 0; base = 0 }
}

/* ============ the clock: forward by 1, and once back by BACK ============ */
proctype Env() {
end:
  do
  :: atomic { T < TMAX -> T++ }
  :: atomic { !stepped && T > BACK -> stepped = 1; T = T - BACK; printf("T=%d the clock steps back by %d\n", T, BACK) }
  od
}

init {
  atomic {
    /* worker id 1's floor: below the clock after the step back (the switch starts at the clock), or ahead of it
       (the keeper waits for the floor) */
    if :: floorB = 1 :: floorB = 3 fi;
    /* the earlier holders of both worker ids issued up to their floors. No lease is renewed, so worker id 0 may
       be taken when its lease expires, and its next holder issues above the stored high-water (rule 2) */
    claim(0, 0, FLOOR_A);
    claim(1, 0, floorB);
    claim(0, HW_A + 1, TMAX);
    /* AbstractIdWorker.start() L150-157: the state, then the fence */
    state = ID(T0, 0, 0);
    fence = 0;
    i = 0;
    do
    :: i < NC -> run Caller(i); i++
    :: else -> break
    od;
    run Keeper(); run Env()
  }
}
