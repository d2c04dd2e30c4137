/*
 * lease.pml -- the worker-id lease protocol (DESIGN section 4) over the Redis lease centre, model-checked by SPIN.
 *
 * Safety property: no two issued identifiers are equal. An identifier is (timestamp, worker id, sequence); the
 * model issues per lease at most one new millisecond at a time and watches one (timestamp, slot) pair, chosen
 * nondeterministically among those issued (the "spy", see record()). The assertion fails when that pair is
 * used by a second lease (owner token), or starts a second time at sequence 0 under the same lease: either
 * could repeat an identifier. SPIN tries every choice of the watched pair, so every duplicate is found.
 *
 * Actors: NW workers (AbstractIdWorker + LeaseKeeper + WorkerSlots, one process each, restartable with new owner
 * tokens), one centre (lease-borrow.lua, lease-renew.lua, lease-return.lua, each one atomic step as a Lua
 * script is in Redis), and an environment that moves time and injects the faults.
 *
 * Time: one global clock T (the centre's, Redis TIME), T0 .. TMAX. A worker's clock is T + its skew (chosen at the
 * start, within and beyond max-skew, both ways), minus BACK once it stepped back. Between any two steps time may
 * pass, so every centre call may hang (the request is computed with the worker's clock of one moment, the
 * centre executes it later, the reply arrives later still), and every worker may be frozen past its lease.
 *
 * Switches (each one restores a hole that was really found; with it SPIN must find a counterexample):
 *   -DNO_CLOCK_BOUND        DESIGN rule 13 removed: lease-borrow.lua step 0 and lease-renew.lua's AHEAD check
 *   -DNO_RECORD_LOSS_CHECK  DESIGN rule 9 removed: a missing slot record below slots_created counts as never claimed
 *   -DNO_LOSS_GUARD         DESIGN rule 7 removed: a new generation's floor is the Redis time, not time + loss guard
 *                           (the database centre's hole of commit 989514a: a namespace deleted whole)
 *   -DNO_FENCE              DESIGN rule 2 removed: a worker issues past its stored high-water
 */

#define NW      2     /* workers */
#define NS      2     /* slots: 2^workerBits */
#define TTL     2     /* idworker.lease.ttl */
#define SKEW    1     /* idworker.lease.max-skew */
#define GUARD   3     /* idworker.lease.loss-guard = ttl + max-skew */
#define MAXBACK 0     /* idworker.snowflake.max-backward */
#define BACK    2     /* size of the clock step back, > MAXBACK */
#define SKEWMAX 2     /* worker skews range over -SKEWMAX .. +SKEWMAX: beyond max-skew both ways */
#ifndef T0
#define T0      4     /* first instant; keeps every worker clock >= 0 */
#endif
#ifndef TMAX
#define TMAX    8     /* last instant: bounded time */
#endif
#ifndef MAXTOK
#define MAXTOK  3     /* borrows (owner tokens) in one run */
#endif

#define max(a, b) ((a) > (b) -> (a) : (b))
#define CLK(w) (T + skew[w] - SKEWMAX - (back[w] -> BACK : 0))
#ifdef NO_FENCE
#define FENCE_OK(w, ts) true
#else
#define FENCE_OK(w, ts) ((ts) <= fHw[w])
#endif

mtype = { NONE, BORROW, RENEW, RETURN,              /* the keeper's centre call in flight */
          OK, LOST, AHEAD, EXHAUSTED, RETRY, IGNORED, /* the centre's replies */
          IDLE, RUN, DONE };                        /* worker phases: not started, issuing, closed or killed */

byte T = T0;

/* ---- the centre: lease hash {id, run_id, floor, guard, ms, slots_created, <slot>} of lease-borrow.lua L5-10 ---- */
bool mk = 1;        /* generation marker present; the model starts with an aged namespace (a marker of long ago) */
byte gId = 1;       /* marker id (the Redis time of the generation start; here a counter, new ones always fresh) */
byte gCount = 1;
byte gFloor = 0;    /* marker floor */
byte gMs = 0;       /* marker ms */
bool hasCreated = 1;
byte created = 0;   /* slots_created */
bool rec[NS];       /* slot record present */
byte hw[NS];        /* highWater */
byte ex[NS];        /* expires */
byte own[NS];       /* owner token, 0 = free */

/* ---- the faults' budgets: each at most once in a run ---- */
bool lostWhole, lostRecord, stepped;

/* ---- the workers ---- */
byte skew[NW];      /* skew + SKEWMAX */
bool back[NW];      /* the clock stepped back by BACK */
mtype ph[NW];       /* IDLE (not started, or start() failed), RUN, DONE (closed or killed: no restart; the other
                       worker stands for any later process) */
byte tok = 0;       /* last owner token handed out (UUID.randomUUID() per borrow, WorkerSlots L46) */
byte stTs[NW];      /* AbstractIdWorker.state: timestamp of the last identifier (its worker bits = fSlot) */
bool fOn[NW];       /* AbstractIdWorker.fence != null */
byte fSlot[NW], fTok[NW], fFloor[NW], fHw[NW], fGen[NW];

/* the keeper's one centre call (LeaseKeeper: a single thread; a call blocks it until the reply) */
mtype kop[NW];      /* NONE, BORROW, RENEW, RETURN */
bool kDone[NW];     /* the centre executed it; the reply is on its way */
bool kSwitch[NW];   /* the borrow is LeaseKeeper.switchWorker's, not start()'s */
bool kBack[NW];     /* ... after a clock step back (switchWorker(true)) */
byte kReq[NW];      /* BORROW: workerNowMs; RENEW: newHighWater; RETURN: lastIssuedMs */
byte kTok[NW], kSlot[NW], kGen[NW];
byte nTok[NW];      /* the owner token of the borrow in flight */
mtype kRes[NW];
byte rSlot[NW], rFloor[NW], rHw[NW], rGen[NW];

/* scratch variables of one atomic step, never read in a later one: hidden, so not part of the state */
hidden byte tnow, wnow, s, eff, lostFloor, chosen, chosenHw, base, last, oFloor, oHw, i;
hidden byte lost, chosenLost, isNew, bdone;

/* the keeper is idle again: its call's variables are cleared, so that stale values do not multiply states */
inline idle(w) {
  kop[w] = NONE; kDone[w] = 0; kSwitch[w] = 0; kBack[w] = 0; kReq[w] = 0; kTok[w] = 0; kSlot[w] = 0; kGen[w] = 0;
  nTok[w] = 0; kRes[w] = 0; rSlot[w] = 0; rFloor[w] = 0; rHw[w] = 0; rGen[w] = 0
}

/* the worker holds no lease any more (closed or killed) */
inline stop(w) {
  ph[w] = DONE; fOn[w] = 0; stTs[w] = 0; fSlot[w] = 0; fTok[w] = 0; fFloor[w] = 0; fHw[w] = 0; fGen[w] = 0
}

/* the watched identifier (timestamp, slot) and the lease that used it first; 0 = none chosen yet */
byte spyTs, spySlot, spyTok;

/* ======================================= the centre's scripts ======================================= */

/* lease-borrow.lua, for worker w's request (kReq = workerNowMs, kTok = owner) at Redis time T */
inline borrow(w) {
  tnow = T;
  wnow = kReq[w];
  bdone = 0;
#ifndef NO_CLOCK_BOUND
  if   /* step 0, lease-borrow.lua L110-112: a worker clock more than maxSkew ahead is refused */
  :: wnow > tnow + SKEW -> kRes[w] = AHEAD; bdone = 1
  :: else
  fi;
#endif
  if
  :: !bdone ->
       /* step 2, L141-160: a missing marker starts a generation at floor now + guard (no old floor survives a
          whole loss; a marker written by another Redis identity is not modelled, see README) */
       if
       :: !mk ->
#ifdef NO_LOSS_GUARD
            gFloor = tnow;
#else
            gFloor = tnow + GUARD;
#endif
            gCount++; gId = gCount; gMs = tnow; mk = 1
       :: else
       fi;
       if   /* L164-180: slots_created missing: 0 when the marker was missing too (a new or lost namespace) */
       :: !hasCreated -> created = 0; hasCreated = 1
       :: else
       fi;
       if   /* L181-183 */
       :: tnow <= gMs -> kRes[w] = RETRY; bdone = 1
       :: else
       fi
  :: else
  fi;
  if
  :: !bdone ->
       /* steps 3 and 4, L188-218: effective high-waters and the claim */
       lostFloor = max(gFloor, tnow + GUARD);
       chosen = 255; chosenHw = 0; chosenLost = 0; isNew = 0;
       s = 0;
       do
       :: s < created && s < NS ->
            eff = 255;
            if
            :: !rec[s] ->                                   /* L198-199: a record lost below slots_created */
#ifdef NO_RECORD_LOSS_CHECK
                 eff = gFloor; lost = 0
#else
                 eff = lostFloor; lost = 1
#endif
            :: rec[s] && (own[s] == 0 || ex[s] < tnow) -> eff = max(hw[s], gFloor); lost = 0   /* L200-201 */
            :: else
            fi;
            if
            :: eff != 255 && eff < wnow -> chosen = s; chosenHw = eff; chosenLost = lost; break   /* L204-206 */
            :: eff != 255 && eff >= wnow && (chosen == 255 || eff < chosenHw) ->
                 chosen = s; chosenHw = eff; chosenLost = lost                                  /* L208-210 */
            :: else
            fi;
            s++
       :: else -> break
       od;
       if   /* L214-218: a slot never claimed has the generation floor */
       :: created < NS && (chosen == 255 || chosenHw >= wnow) && (chosen == 255 || gFloor < chosenHw || gFloor < wnow) ->
            chosen = created; chosenHw = gFloor; chosenLost = 0; isNew = 1
       :: else
       fi;
       if
       :: chosen == 255 -> kRes[w] = EXHAUSTED                 /* L220-222 */
       :: else ->
            /* L225-230: hw = max(floor (+1 unless lost), workerNow + ttl), expires = now + ttl */
            rec[chosen] = 1;
            hw[chosen] = max((chosenLost -> chosenHw : chosenHw + 1), wnow + TTL);
            ex[chosen] = tnow + TTL;
            own[chosen] = kTok[w];
            if :: isNew -> created++ :: else fi;
            kRes[w] = OK; rSlot[w] = chosen; rFloor[w] = chosenHw; rHw[w] = hw[chosen]; rGen[w] = gId;
            printf("T=%d worker %d (clock %d) borrows slot %d: floor %d, high-water %d, owner %d\n", T, w, wnow,
                   chosen, chosenHw, hw[chosen], kTok[w])
       fi
  :: else
  fi
}

/* lease-renew.lua: slot kSlot, owner kTok, newHighWater kReq, generation kGen */
inline renew(w) {
  tnow = T;
  s = kSlot[w];
  if
  :: !mk || gId != kGen[w] -> kRes[w] = LOST                      /* L54-56: generation */
  :: else -> if
       :: !rec[s] -> kRes[w] = LOST                               /* L61-63: record */
       :: rec[s] && own[s] != kTok[w] -> kRes[w] = LOST           /* L64-66: owner */
#ifndef NO_CLOCK_BOUND
       :: rec[s] && own[s] == kTok[w] && kReq[w] > hw[s] && kReq[w] > tnow + TTL + SKEW ->
            kRes[w] = AHEAD                                       /* L71-73: rule 13 */
#endif
       :: else -> hw[s] = max(hw[s], kReq[w]); ex[s] = tnow + TTL; /* L74-77 */
            kRes[w] = OK; rHw[w] = hw[s];
            printf("T=%d worker %d renews slot %d: high-water %d\n", T, w, s, hw[s])
       fi
  fi
}

/* lease-return.lua: slot kSlot, owner kTok, lastIssuedMs kReq, generation kGen */
inline giveBack(w) {
  s = kSlot[w];
  if
  :: mk && gId == kGen[w] && rec[s] && own[s] == kTok[w] ->        /* L37-43 */
       hw[s] = kReq[w]; ex[s] = 0; own[s] = 0; kRes[w] = OK       /* L45 */
  :: else -> kRes[w] = IGNORED
  fi
}

/* ========================================= the workers ========================================= */

/* the safety check, on every millisecond ts a lease (owner token fTok) starts to issue identifiers of slot fSlot
   in, from sequence 0. The watched pair (spyTs, spySlot) is chosen nondeterministically among those issued; a
   second start of the same pair, by any lease, would repeat identifiers: (ts, slot, 0) at least. */
inline record(w, ts) {
  if
  :: spyTok != 0 && spyTs == ts && spySlot == fSlot[w] ->
       printf("T=%d worker %d issues (ts %d, slot %d) under owner %d: DUPLICATE of owner %d's\n", T, w, ts, fSlot[w],
              fTok[w], spyTok);
       assert(false)
  :: else ->
       if
       :: spyTok == 0 -> spyTs = ts; spySlot = fSlot[w]; spyTok = fTok[w];
            printf("T=%d worker %d issues (ts %d, slot %d) under owner %d\n", T, w, ts, fSlot[w], fTok[w])
       :: true
       fi
  fi
}

/* WorkerSlots.giveBackQuietly L103-119 (lease = the fence's or a just-borrowed one, in the k and r variables) */
inline sendReturn(w, last, lhw) {
  if
  :: last <= lhw -> kReq[w] = last; kop[w] = RETURN; kDone[w] = 0
  :: else -> idle(w)   /* L105-110: a timestamp outside the lease: leave it to expire */
  fi
}

/* WorkerSlots.borrowAndWait L45-47: a fresh owner token, this clock; lease-borrow.lua runs at once (a borrow
   whose reply is late is a keeper that waits longer for the floor, below) */
inline sendBorrow(w, sw, bk) {
  tok++; kTok[w] = tok; nTok[w] = tok; kReq[w] = CLK(w); kSwitch[w] = sw; kBack[w] = bk; kop[w] = BORROW;
  borrow(w); kDone[w] = 1
}

proctype Worker(byte w) {
end:
  do
  /* ---- AbstractIdWorker.start() L138-165 -> WorkerSlots.borrowAndWait L41-88 ---- */
  :: atomic { ph[w] == IDLE && kop[w] == NONE && tok < MAXTOK -> sendBorrow(w, 0, 0) }

  /* ---- the centre executes the keeper's call: any time after it was sent (a call that hangs) ---- */
  :: atomic { kop[w] != NONE && !kDone[w] ->
       if
       :: kop[w] == BORROW -> borrow(w)
       :: kop[w] == RETURN -> giveBack(w)
       fi;
       kDone[w] = 1;
       /* the replies that need no further step are taken at once: a reply that arrives late is the same as a
          keeper that acts later, except that the renewed fence is published later, which only forbids more */
       if
       :: kop[w] == RETURN -> idle(w)                       /* the reply of a return is only logged */
       :: else
       fi }

  /* ---- the borrow's reply ---- */
  :: atomic { kop[w] == BORROW && kDone[w] && kRes[w] == RETRY -> borrow(w) }  /* RedisSequenceManager L187-196:
                                                                                   the same request again */
  :: atomic { kop[w] == BORROW && kDone[w] && kRes[w] != OK && kRes[w] != RETRY ->
       idle(w) }   /* AHEAD, EXHAUSTED: start() throws (the worker stays IDLE, may start again); a switch
                            fails, is noted, and the heartbeat retries (LeaseKeeper L189-195, L238-241) */
  /* (WorkerSlots L58-66 gives the slot back when its clock has not passed the floor after loss guard + max-skew
     + 1 s: longer than the model's time, so the keeper simply waits) */
  :: atomic { kop[w] == BORROW && kDone[w] && kRes[w] == OK && CLK(w) > rFloor[w] ->
       /* WorkerSlots L58 passed (the extension renewal of L75-83 is left to the keeper's renewals below: the
          lease is published as borrowed and renewed by the next step, which the model allows at once) */
       tnow = CLK(w);
       base = max(rFloor[w] + 1, tnow);             /* start() L147 / switchWorker L266 */
       if
       :: !kSwitch[w] ->                           /* start() L153-155: the state, then the fence */
            stTs[w] = base - 1; ph[w] = RUN;   /* the state names base with sequence 0: base - 1 here, so
                                                  that base is recorded as started when it is issued in */
            fOn[w] = 1; fSlot[w] = rSlot[w]; fTok[w] = nTok[w]; fFloor[w] = rFloor[w]; fHw[w] = rHw[w];
            fGen[w] = rGen[w];
            idle(w)
       :: kSwitch[w] && ph[w] != RUN ->            /* switchWorker L261-263: closed meanwhile */
            kSlot[w] = rSlot[w]; kGen[w] = rGen[w];
            sendReturn(w, rFloor[w], rHw[w])
       :: kSwitch[w] && ph[w] == RUN ->
            if :: !kBack[w] -> base = max(base, stTs[w] + 1) :: else fi;   /* L267-269 */
            last = stTs[w]; stTs[w] = base - 1;                            /* L274-278: the compare-and-set */
            kSlot[w] = fSlot[w]; kGen[w] = fGen[w]; kTok[w] = fTok[w];     /* the old lease, for the return */
            oHw = fHw[w];
            /* L281: publish(lease), L355-362 */
            fSlot[w] = rSlot[w]; fTok[w] = nTok[w]; fFloor[w] = rFloor[w]; fHw[w] = rHw[w]; fGen[w] = rGen[w];
            nTok[w] = 0; rSlot[w] = 0; rFloor[w] = 0; rHw[w] = 0; rGen[w] = 0; kSwitch[w] = 0; kBack[w] = 0;
            sendReturn(w, last, oHw)                               /* L284-286 */
       fi }

  /* ---- AbstractIdWorker.nextId() L168-200: one identifier ---- */
  :: atomic { ph[w] == RUN && fOn[w] && CLK(w) > stTs[w] && FENCE_OK(w, CLK(w)) ->
       /* L177-182: a new millisecond, sequence 0; L190: at most the fence's high-water; L195: published */
       tnow = CLK(w); record(w, tnow); stTs[w] = tnow }
  /* (L183-184: a clock at or up to max-backward behind the state continues the sequence of the state's millisecond:
     more identifiers of a millisecond this lease has started already, which record() covers) */
  /* a step back beyond max-backward: FenceWaits.awaitBackwardStep L219 -> LeaseKeeper.switchAfterBackwardStep
     L225-237 (queued behind the keeper's call in flight: it re-checks the step when it runs) */
  :: atomic { ph[w] == RUN && kop[w] == NONE && stTs[w] > CLK(w) + MAXBACK && tok < MAXTOK ->
       sendBorrow(w, 1, 1) }

  /* ---- LeaseKeeper.renewNow L177-210 (heartbeat, or a caller at the high-water: FenceWaits L195), with
     lease-renew.lua executed at once: a renewal that hangs is one that happens later or never, while the worker
     issues up to its old high-water and is then fenced (see README: abstractions) ---- */
  :: atomic { ph[w] == RUN && kop[w] == NONE ->
       kReq[w] = max(fHw[w], CLK(w) + TTL);                           /* L182 */
       kSlot[w] = fSlot[w]; kTok[w] = fTok[w]; kGen[w] = fGen[w];
       renew(w);                                                      /* L185 */
       if
       :: kRes[w] == OK -> fHw[w] = rHw[w]; idle(w)                 /* L201-209: publish the renewed fence */
       :: kRes[w] == AHEAD -> idle(w)                                /* L196-199: fenced at the stored high-water */
       :: kRes[w] == LOST && tok < MAXTOK -> idle(w); sendBorrow(w, 1, 0)   /* L186-195: switchWorker(false) */
       :: kRes[w] == LOST && tok >= MAXTOK -> idle(w)  /* the model's borrows are used up: as EXHAUSTED */
       fi }

  /* ---- close() L313-321 -> LeaseKeeper.returnOnClose L143-155: stop, return with the last timestamp ---- */
  :: atomic { ph[w] == RUN && kop[w] == NONE ->
       kSlot[w] = fSlot[w]; kTok[w] = fTok[w]; kGen[w] = fGen[w];
       sendReturn(w, stTs[w], fHw[w]); stop(w) }
  /* (kill -9 is a close whose return never reaches the centre: the return above may hang for ever) */
  od
}

/* ================================== time and the faults ================================== */
proctype Env() {
end:
  do
  :: atomic { T < TMAX -> T++ }
  /* Redis loses all its data (restart without persistence, FLUSHALL, eviction of the one hash) */
#ifdef FAULT_LOSS
  :: atomic { !lostWhole -> lostWhole = 1; mk = 0; hasCreated = 0; printf("T=%d Redis loses the lease hash\n", T);
       i = 0; do :: i < NS -> rec[i] = 0; hw[i] = 0; ex[i] = 0; own[i] = 0; i++ :: else -> break od }
#endif
#ifdef FAULT_RECORD
  /* one slot record lost (an HDEL by hand) */
  :: atomic { !lostRecord -> lostRecord = 1; printf("T=%d one slot record is deleted\n", T);
       if :: rec[0] -> rec[0] = 0; hw[0] = 0; ex[0] = 0; own[0] = 0
          :: rec[1] -> rec[1] = 0; hw[1] = 0; ex[1] = 0; own[1] = 0 fi }
#endif
#ifdef FAULT_STEP
  /* one worker's clock steps back by BACK */
  :: atomic { !stepped -> stepped = 1; if :: back[0] = 1 :: back[1] = 1 fi }
#endif
  od
}

init {
  atomic {
    /* every skew: -SKEWMAX .. +SKEWMAX, i.e. within max-skew and beyond it, both ways */
    if :: skew[0] = 0 :: skew[0] = 1 :: skew[0] = 2 :: skew[0] = 3 :: skew[0] = 4 fi;
    /* the workers are symmetric: skew[0] <= skew[1] loses no behaviour */
    if :: skew[1] = 0 :: skew[1] = 1 :: skew[1] = 2 :: skew[1] = 3 :: skew[1] = 4 fi;
    if :: skew[1] < skew[0] -> skew[1] = skew[0] :: else fi;
    ph[0] = IDLE; ph[1] = IDLE; kop[0] = NONE; kop[1] = NONE;
    printf("skews: worker 0 %d, worker 1 %d (max-skew %d)\n", skew[0] - SKEWMAX, skew[1] - SKEWMAX, SKEW);
    run Env(); run Worker(0); run Worker(1)
  }
}
