/*
 * jdbc-lease.pml -- the worker-id lease protocol (DESIGN section 4) over the JDBC lease centre
 * (JdbcSequenceManager, NamespaceRecords, SlotClaims), model-checked by SPIN.
 *
 * Safety property: the same as lease.pml's. No two issued identifiers are equal. The model watches one
 * (timestamp, slot) pair, chosen nondeterministically among those issued (record()), and fails when that pair starts
 * a second time, under another lease or the same one.
 *
 * Actors: NW workers (AbstractIdWorker + LeaseKeeper + WorkerSlots, one process each; the worker side is lease.pml's,
 * without the clock step back), the database, and an environment that moves time and injects the faults. Unlike a
 * Lua script, a JDBC borrow is not one atomic step: the keeper runs it statement by statement, and every other
 * actor may act between two of them. Each transaction is one atomic step: its row locks (the namespace record's,
 * taken first by every claim) serialize it against every other writer. The plain reads run at READ COMMITTED, each
 * one atomic step that sees what is committed at that moment. A borrow is:
 *   step 0   the database clock, compared with the request's worker clock (rule 13);
 *   a round  the namespace record read, the slot rows read (two statements), then one of: create the record;
 *            repair lost rows (a clock read, then one insert per row); claim (one transaction per candidate, in
 *            SlotClaims.claim's order; a fresh id whose row exists adds a count transaction). A round whose claims
 *            all lost a race reads again.
 *
 * Time: one global clock T (the database's), T0 .. TMAX. A worker's clock is T + its skew (within and beyond
 * max-skew, both ways). Time may pass between any two steps: every statement of a borrow may come late, and every
 * worker may be frozen past its lease.
 *
 * Switches (each restores a hole that was really found; with it SPIN must find a counterexample):
 *   -DNO_CREATED_AT_CHECK  commit 451dba6 removed: the count UPDATE does not match created_at, a row claim does not
 *                          lock and compare the record; the floor comes from the record the round read
 *   -DNO_LOSS_GUARD        commit 989514a removed: a fresh slot id has floor 0, not created_at + guard
 * Faults (one class per run, as in lease.pml):
 *   -DFAULT_LOSS           the namespace is deleted whole (record and rows), and may be recreated at once by a
 *                          third borrower (NamespaceRecords.create of a borrower the model does not run further)
 *   -DFAULT_ROW            one slot row is deleted
 */

#define NW      2     /* workers */
#ifndef NS
#define NS      2     /* slots: the slot count, 2^workerBits (1 or 2) */
#endif
#define TTL     2     /* idworker.lease.ttl */
#define SKEW    1     /* idworker.lease.max-skew */
#define GUARD   3     /* idworker.lease.loss-guard = ttl + max-skew; one guard for all (raiseGuard not modelled) */
#define SKEWMAX 2     /* worker skews range over -SKEWMAX .. +SKEWMAX: beyond max-skew both ways */
#ifndef T0
#define T0      4     /* first instant; keeps every worker clock >= 0 */
#endif
#ifndef TMAX
#define TMAX    7     /* last instant: bounded time (lease.pml: 8; the JDBC borrow's steps cost a tick) */
#endif
#ifndef MAXTOK
#define MAXTOK  2     /* borrows (owner tokens) in one run (lease.pml: 3); a third borrower creates a record */
#endif

#define max(a, b) ((a) > (b) -> (a) : (b))
#define CLK(w) (T + skew[w] - SKEWMAX)
#define FRESH NS      /* candidate number of a fresh slot id */
#define NONE_C 255    /* no candidate left */

/* SlotClaims.freshFloor L287-289: created_at + guard */
#ifdef NO_LOSS_GUARD
#define FRESH_FLOOR(at) 0
#else
#define FRESH_FLOOR(at) ((at) + GUARD)
#endif

mtype = { NONE, BORROW, RENEW, RETURN,              /* the keeper's centre call in flight */
          OK, LOST, AHEAD, EXHAUSTED, IGNORED,      /* the centre's replies */
          IDLE, RUN, DONE };                        /* worker phases: not started, issuing, closed or killed */

/* the statement of a borrow the keeper runs next (kop == BORROW && !kDone) */
#define B_CLOCK  1    /* step 0: SELECT <now>, then the first round's record read */
#define B_REC    2    /* round: SELECT layout, guard_ms, slots_created, created_at FROM <table>_ns */
#define B_ROWS   3    /* round: SELECT slot_id, high_water, claimable, never claimed FROM <table> */
#define B_CREATE 4    /* INSERT INTO <table>_ns */
#define B_RCLK   5    /* repair: SELECT <now> */
#define B_RINS   6    /* repair: INSERT INTO <table> (one lost row) */
#define B_CLAIM  7    /* a claim transaction, the next candidate */
#define B_COUNT  8    /* countExistingRow: UPDATE <table>_ns SET slots_created = ? WHERE slots_created = ? */

byte T = T0;

/* ---- the database: the namespace record of <table>_ns and the slot rows of <table> ---- */
bool nsRec = 1;     /* the record exists; the model starts with an aged namespace (a record of long ago) */
byte nsAt = 0;      /* created_at: the database clock of its INSERT */
byte nsSC = 0;      /* slots_created */
bool rp[NS];        /* the slot row exists */
byte hw[NS];        /* high_water */
byte ex[NS];        /* expires_at */
byte own[NS];       /* owner_token, 0 = NULL */
bool st[NS];        /* started_at IS NOT NULL: claimed at least once */

/* ---- the faults' budgets: each at most once in a run ---- */
bool lostWhole, recreated, lostRow;

/* ---- the workers ---- */
byte skew[NW];      /* skew + SKEWMAX */
mtype ph[NW];       /* IDLE (not started, or start() failed), RUN, DONE (closed or killed) */
byte tok = 0;       /* last owner token handed out (UUID.randomUUID() per borrow, WorkerSlots L46) */
byte stTs[NW];      /* AbstractIdWorker.state: timestamp of the last identifier (its worker bits = fSlot) */
bool fOn[NW];       /* AbstractIdWorker.fence != null */
byte fSlot[NW], fTok[NW], fHw[NW];

/* the keeper's one centre call (LeaseKeeper: a single thread; a call blocks it until the reply) */
mtype kop[NW];      /* NONE, BORROW, RENEW, RETURN */
bool kDone[NW];     /* the centre finished it; the reply is on its way */
bool kSwitch[NW];   /* the borrow is LeaseKeeper.switchWorker's, not start()'s */
byte kReq[NW];      /* BORROW: workerNowMs; RENEW: newHighWater; RETURN: lastIssuedMs */
byte kTok[NW], kSlot[NW];
byte nTok[NW];      /* the owner token of the borrow in flight */
mtype kRes[NW];
byte rSlot[NW], rFloor[NW], rHw[NW];

/* the borrow in flight: its next statement and what the round read (NamespaceRecords.Snapshot) */
byte bst[NW];       /* B_* */
bool sRec[NW];      /* the record was found */
byte sAt[NW];       /* its created_at */
byte sSC[NW];       /* its slots_created (until the rows are read) */
typedef Rows { byte fl[NS]; byte hw[NS] };
Rows sn[NW];        /* per candidate row: the high-water read and its floor (Row.floor) */
byte cm[NW];        /* candidates left: bit i < NS a claimable row, bit FRESH a fresh id */
bool rSurv[NW];     /* create: the namespace had slot rows */
byte lm[NW];        /* repair: lost slot ids left to insert */
byte rpFl[NW];      /* repair: its floor, centreNowMillis() + guard */
byte pcnt[NW];      /* countExistingRow: the slot id + 1 whose row was found */

/* scratch variables of one atomic step, never read in a later one: hidden, so not part of the state */
hidden byte s, c, i, fl, base, last, oHw, x;

/* the round is over: what it read is forgotten (so that stale values do not multiply states) */
inline forget(w) {
  sRec[w] = 0; sAt[w] = 0; sSC[w] = 0; cm[w] = 0; rSurv[w] = 0; lm[w] = 0; rpFl[w] = 0; pcnt[w] = 0;
  i = 0; do :: i < NS -> sn[w].fl[i] = 0; sn[w].hw[i] = 0; i++ :: else -> break od
}

/* the keeper is idle again: its call's variables are cleared */
inline idle(w) {
  kop[w] = NONE; kDone[w] = 0; kSwitch[w] = 0; kReq[w] = 0; kTok[w] = 0; kSlot[w] = 0;
  nTok[w] = 0; kRes[w] = 0; rSlot[w] = 0; rFloor[w] = 0; rHw[w] = 0; bst[w] = 0; forget(w)
}

/* the worker holds no lease any more (closed or killed) */
inline stop(w) {
  ph[w] = DONE; fOn[w] = 0; stTs[w] = 0; fSlot[w] = 0; fTok[w] = 0; fHw[w] = 0
}

/* the watched identifier (timestamp, slot) and the lease that used it first; 0 = none chosen yet */
byte spyTs, spySlot, spyTok;

/* ================================ the centre: JdbcSequenceManager.borrow ================================ */

/* the borrow's reply: a lease of slot c with floor fl (WorkerLease.of, SlotClaims L257 / L333) */
inline granted(w, slot, floor) {
  kRes[w] = OK; rSlot[w] = slot; rFloor[w] = floor; rHw[w] = hw[slot]; kDone[w] = 1; bst[w] = 0; forget(w);
  printf("T=%d worker %d (clock %d) claims slot %d: floor %d, high-water %d, owner %d\n", T, w, kReq[w], slot,
         floor, hw[slot], kTok[w]);
  kReq[w] = 0   /* the worker's clock at the request is not needed any more */
}

/* a borrow that throws (AHEAD, EXHAUSTED): start() throws, the worker stays IDLE and may start again; a switch
   fails, is noted, and the heartbeat retries (LeaseKeeper L189-195, L238-241). The reply is taken at once: a
   late one is a worker that starts or renews later, which the model allows anyway */
inline failed(w, why) {
  printf("T=%d worker %d: borrow refused (%e)\n", T, w, why);
  idle(w)
}

/* L154 -> NamespaceRecords.read L75, L81-88: SELECT layout, guard_ms, slots_created, created_at FROM <table>_ns
   WHERE ns = ? (its own statement: READ COMMITTED, so the rows below may be read in another state) */
inline readRecord(w) {
  sRec[w] = nsRec; sAt[w] = (nsRec -> nsAt : 0); sSC[w] = (nsRec -> nsSC : 0); bst[w] = B_ROWS;
  if
  :: nsRec -> printf("T=%d worker %d reads the namespace record: created_at %d, slots_created %d\n", T, w, nsAt, nsSC)
  :: else -> printf("T=%d worker %d reads the namespace record: none\n", T, w)
  fi
}

/* JdbcSequenceManager.borrow L152 -> LeaseRequest.refuseIfAheadOf: SELECT <now>; a worker clock more than
   max-skew ahead of it is refused before anything is written (rule 13). The model runs it in the step of the first
   round's record read, which comes later: a later clock refuses less (every request it refuses, an earlier one
   refuses too), so this adds behaviours and removes none, and saves a step per borrow */
inline stepClock(w) {
  if
  :: kReq[w] > T + SKEW -> failed(w, AHEAD)
  :: else -> readRecord(w)
  fi
}

/* NamespaceRecords.read L76-78, L89-100: SELECT slot_id, high_water, CASE WHEN owner_token IS NULL OR expires_at <
   <now> .., CASE WHEN started_at IS NULL .. FROM <table> WHERE ns = ?; then borrow L156-166 decides on the snapshot */
inline readRows(w) {
  rSurv[w] = 0; lm[w] = 0; cm[w] = 0;
  i = 0;
  do
  :: i < NS ->
       if :: rp[i] -> rSurv[w] = 1 :: else fi;
       /* Snapshot.lost L60-67: an id below slots_created without a row */
       if :: sRec[w] && i < sSC[w] && !rp[i] -> lm[w] = lm[w] | (1 << i) :: else fi;
       /* SlotClaims.claim L80-84: a claimable row (no owner, or expires_at passed by the database clock) */
       if
       :: rp[i] && (own[i] == 0 || ex[i] < T) ->
            cm[w] = cm[w] | (1 << i); sn[w].hw[i] = hw[i];
            /* Row.floor L51-53: a row never claimed whose high-water is at or after created_at gets at least the
               fresh floor (SlotClaims.claim L76-77) */
            sn[w].fl[i] = ((!st[i] && hw[i] >= sAt[w]) -> max(hw[i], FRESH_FLOOR(sAt[w])) : hw[i])
       :: else
       fi;
       i++
  :: else -> break
  od;
  if :: sSC[w] < NS -> cm[w] = cm[w] | (1 << FRESH) :: else fi;   /* claim L85: freshLeft */
  sSC[w] = 0;
  if
  :: !sRec[w] -> cm[w] = 0; bst[w] = B_CREATE                         /* borrow L156-158 */
  :: sRec[w] && lm[w] != 0 -> cm[w] = 0; bst[w] = B_RCLK               /* L161-164 (checkLayoutAndGuard L160:
                                                                         one layout and guard, not modelled) */
  :: sRec[w] && lm[w] == 0 && cm[w] == 0 ->                             /* SlotClaims.claim L86-88 */
       failed(w, EXHAUSTED)
  :: sRec[w] && lm[w] == 0 && cm[w] != 0 -> bst[w] = B_CLAIM; rSurv[w] = 0
  fi
}

/* NamespaceRecords.create L110-126: INSERT INTO <table>_ns (.., slots_created, created_at) VALUES (.., ?, <now>),
   slots_created = the slot count when the namespace had rows, else 0; a duplicate key (a concurrent creator won)
   inserts nothing. Then the round reads again (borrow L158) */
inline create(w) {
  if
  :: !nsRec -> nsRec = 1; nsAt = T; nsSC = (rSurv[w] -> NS : 0);
       printf("T=%d worker %d creates the namespace record: created_at %d, slots_created %d\n", T, w, T, nsSC)
  :: else
  fi;
  forget(w); bst[w] = B_REC
}

/* NamespaceRecords.repair L158: floor = centreNowMillis() (SELECT <now>, L180-188) + guard */
inline repairClock(w) {
  rpFl[w] = T + GUARD; bst[w] = B_RINS
}

/* NamespaceRecords.repair L161-170: per lost id, INSERT INTO <table> (ns, slot_id, owner_token, expires_at,
   high_water) VALUES (?, ?, NULL, 0, floor), each its own transaction; a duplicate key inserts nothing. Then the
   round reads again (borrow L164) */
inline repairInsert(w) {
  s = 0; do :: !((lm[w] >> s) & 1) -> s++ :: else -> break od;
  lm[w] = lm[w] & ~(1 << s);
  if
  :: !rp[s] -> rp[s] = 1; own[s] = 0; ex[s] = 0; hw[s] = rpFl[w]; st[s] = 0;
       printf("T=%d worker %d repairs slot %d: high-water %d\n", T, w, s, rpFl[w])
  :: else
  fi;
  if :: lm[w] == 0 -> forget(w); bst[w] = B_REC :: else fi
}

/* SlotClaims.claim L89-97: the next candidate. Past rows (floor below the worker's clock) by slot, then a fresh
   id, then the other rows by floor, then slot (claimFirst L216-225 tries each in turn) */
inline pick(w) {
  c = NONE_C;
  i = 0;
  do
  :: i < NS -> if :: c == NONE_C && ((cm[w] >> i) & 1) && sn[w].fl[i] < kReq[w] -> c = i :: else fi; i++
  :: else -> break
  od;
  if :: c == NONE_C && ((cm[w] >> FRESH) & 1) -> c = FRESH :: else fi;
  if
  :: c == NONE_C ->
       i = 0;
       do
       :: i < NS -> if :: ((cm[w] >> i) & 1) && (c == NONE_C || sn[w].fl[i] < sn[w].fl[c]) -> c = i :: else fi; i++
       :: else -> break
       od
  :: else
  fi
}

/* SlotClaims.claimRow L234-258, one transaction:
     lockRecordAsRead L266-275: SELECT created_at FROM <table>_ns WHERE ns = ? FOR UPDATE; another created_at (or
       none) claims nothing;
     L237-239: UPDATE <table> SET owner_token = ?, expires_at = <now> + ttl, high_water = ?, .., started_at = ?
       WHERE ns = ? AND slot_id = ? AND high_water = ? AND (owner_token IS NULL OR expires_at < <now>);
   one row updated: the lease, floor = Row.floor of the row as read, high-water = LeaseRequest.firstHighWater
   L157-159: max(floor + 1, workerNow + ttl) */
inline claimRow(w, r) {
  fl = sn[w].fl[r];
#ifndef NO_CREATED_AT_CHECK
  if
  :: !nsRec || nsAt != sAt[w] -> x = 0
  :: else -> x = 1
  fi;
#else
  x = 1;
#endif
  if
  :: x && rp[r] && hw[r] == sn[w].hw[r] && (own[r] == 0 || ex[r] < T) ->
       own[r] = kTok[w]; ex[r] = T + TTL; hw[r] = max(fl + 1, kReq[w] + TTL); st[r] = 1;
       granted(w, r, fl)
  :: else
  fi
}

/* SlotClaims.claimFresh L299-339, one transaction:
     L301-302: UPDATE <table>_ns SET slots_created = slots_created + 1 WHERE ns = ? AND slots_created < ? AND
       created_at = ?; no row updated: NONE_LEFT;
     L303, L314-320: SELECT slots_created: the new id is slots_created - 1;
     L322 -> insertClaimed L183-197: INSERT INTO <table> (.., owner_token, expires_at, high_water, .., started_at)
       VALUES (.., ?, <now> + ttl, ?, .., ?), floor = freshFloor (the record as read: created_at + guard);
     L324-330: a duplicate key rolls back, then countExistingRow (L335-337, its own transaction: B_COUNT) */
inline claimFresh(w) {
  fl = FRESH_FLOOR(sAt[w]);
#ifndef NO_CREATED_AT_CHECK
  x = (nsRec && nsSC < NS && nsAt == sAt[w]);
#else
  x = (nsRec && nsSC < NS);
#endif
  if
  :: x ->
       s = nsSC;   /* nsSC + 1 - 1 */
       if
       :: rp[s] -> pcnt[w] = s + 1; bst[w] = B_COUNT           /* rolled back: nsSC unchanged */
       :: else ->
            nsSC++;
            rp[s] = 1; own[s] = kTok[w]; ex[s] = T + TTL; hw[s] = max(fl + 1, kReq[w] + TTL); st[s] = 1;
            granted(w, s, fl)
       fi
  :: else
  fi
}

/* SlotClaims.countExistingRows L347-357: UPDATE <table>_ns SET slots_created = slot + 1 WHERE ns = ? AND
   slots_created = slot (no created_at: a count raised on a recreated record makes ids without rows lost ones, which
   the next round repairs). Then claim L95-97 goes on with the other rows */
inline countRow(w) {
  if :: nsRec && nsSC == pcnt[w] - 1 -> nsSC = pcnt[w] :: else fi;
  pcnt[w] = 0; bst[w] = B_CLAIM
}

/* one statement of the borrow in flight */
inline borrowStep(w) {
  if
  :: bst[w] == B_CLOCK -> stepClock(w)
  :: bst[w] == B_REC -> readRecord(w)
  :: bst[w] == B_ROWS -> readRows(w)
  :: bst[w] == B_CREATE -> create(w)
  :: bst[w] == B_RCLK -> repairClock(w)
  :: bst[w] == B_RINS -> repairInsert(w)
  :: bst[w] == B_COUNT -> countRow(w)
  :: bst[w] == B_CLAIM ->
       pick(w);
       if
       :: c == NONE_C -> forget(w); bst[w] = B_REC      /* every claim lost a race: borrow L153, read again */
       :: c == FRESH -> cm[w] = cm[w] & ~(1 << FRESH); claimFresh(w)
       :: c < NS -> cm[w] = cm[w] & ~(1 << c); claimRow(w, c);
            if :: bst[w] == B_CLAIM -> sn[w].fl[c] = 0; sn[w].hw[c] = 0 :: else fi   /* lost: forgotten */
       fi
  fi
}

/* JdbcSequenceManager.renew L176-200: UPDATE <table> SET expires_at = <now> + ttl, high_water = GREATEST(high_water,
   ?) WHERE ns = ? AND slot_id = ? AND owner_token = ? AND (? <= high_water OR ? <= <now> + ttl + max-skew); no row
   updated: refuseIfStillOwned L206-225 reads the row, still ours is AHEAD, else LOST (the two statements as one step:
   a change between them only turns AHEAD into LOST, which a change just before the UPDATE does as well) */
inline renew(w) {
  s = kSlot[w];
  if
  :: rp[s] && own[s] == kTok[w] && (kReq[w] <= hw[s] || kReq[w] <= T + TTL + SKEW) ->
       hw[s] = max(hw[s], kReq[w]); ex[s] = T + TTL; kRes[w] = OK; rHw[w] = hw[s];
       printf("T=%d worker %d renews slot %d: high-water %d\n", T, w, s, hw[s])
  :: rp[s] && own[s] == kTok[w] && !(kReq[w] <= hw[s] || kReq[w] <= T + TTL + SKEW) -> kRes[w] = AHEAD
  :: !rp[s] || own[s] != kTok[w] -> kRes[w] = LOST
  fi
}

/* JdbcSequenceManager.giveBack L228-240: UPDATE <table> SET owner_token = NULL, expires_at = 0, high_water = ?
   WHERE ns = ? AND slot_id = ? AND owner_token = ? */
inline giveBack(w) {
  s = kSlot[w];
  if
  :: rp[s] && own[s] == kTok[w] -> hw[s] = kReq[w]; ex[s] = 0; own[s] = 0; kRes[w] = OK
  :: else -> kRes[w] = IGNORED
  fi
}

/* ========================================= the workers (lease.pml's) ========================================= */

/* the safety check, on every millisecond ts a lease (owner token fTok) starts to issue identifiers of slot fSlot
   in, from sequence 0 (see lease.pml) */
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

/* WorkerSlots.giveBackQuietly L103-119 */
inline sendReturn(w, last, lhw) {
  if
  :: last <= lhw -> kReq[w] = last; kop[w] = RETURN; kDone[w] = 0
  :: else -> idle(w)   /* L105-110: a timestamp outside the lease: leave it to expire */
  fi
}

/* WorkerSlots.borrowAndWait L45-47: a fresh owner token, this clock (LeaseRequest.workerNowMillis); the centre
   runs the borrow statement by statement from B_CLOCK on */
inline sendBorrow(w, sw) {
  tok++; kTok[w] = tok; nTok[w] = tok; kReq[w] = CLK(w); kSwitch[w] = sw; kop[w] = BORROW; kDone[w] = 0;
  bst[w] = B_CLOCK
}

proctype Worker(byte w) {
end:
  do
  /* ---- AbstractIdWorker.start() L138-165 -> WorkerSlots.borrowAndWait L41-88 ---- */
  :: atomic { ph[w] == IDLE && kop[w] == NONE && tok < MAXTOK -> sendBorrow(w, 0) }

  /* ---- the centre runs the next statement of the keeper's borrow, any time later ---- */
  :: atomic { kop[w] == BORROW && !kDone[w] -> borrowStep(w) }

  /* ---- the centre runs the keeper's return, any time after it was sent (a return that hangs) ---- */
  :: atomic { kop[w] == RETURN && !kDone[w] -> giveBack(w); idle(w) }   /* the reply is only logged */

  /* ---- the borrow's reply (a refusal is taken at once: failed()) ---- */
  /* (WorkerSlots L58-66 gives the slot back when its clock has not passed the floor after loss guard + max-skew
     + 1 s: longer than the model's time, so the keeper simply waits) */
  :: atomic { kop[w] == BORROW && kDone[w] && kRes[w] == OK && CLK(w) > rFloor[w] ->
       /* WorkerSlots L58 passed (the extension renewal of L75-83 is left to the keeper's renewals below) */
       c = CLK(w);
       base = max(rFloor[w] + 1, c);               /* start() L147 / switchWorker L266 */
       if
       :: !kSwitch[w] ->                           /* start() L153-155: the state, then the fence */
            stTs[w] = base - 1; ph[w] = RUN;       /* base - 1: base is recorded as started when issued in */
            fOn[w] = 1; fSlot[w] = rSlot[w]; fTok[w] = nTok[w]; fHw[w] = rHw[w];
            idle(w)
       :: kSwitch[w] && ph[w] != RUN ->            /* switchWorker L261-263: closed meanwhile */
            kSlot[w] = rSlot[w];
            sendReturn(w, rFloor[w], rHw[w])
       :: kSwitch[w] && ph[w] == RUN ->
            base = max(base, stTs[w] + 1);                                 /* L267-269 */
            last = stTs[w]; stTs[w] = base - 1;                            /* L274-278: the compare-and-set */
            kSlot[w] = fSlot[w]; kTok[w] = fTok[w];                        /* the old lease, for the return */
            oHw = fHw[w];
            /* L281: publish(lease), L355-362 */
            fSlot[w] = rSlot[w]; fTok[w] = nTok[w]; fHw[w] = rHw[w];
            nTok[w] = 0; rSlot[w] = 0; rFloor[w] = 0; rHw[w] = 0; kSwitch[w] = 0;
            sendReturn(w, last, oHw)                                       /* L284-286 */
       fi }

  /* ---- AbstractIdWorker.nextId() L168-200: one identifier; L190: at most the fence's high-water ---- */
  :: atomic { ph[w] == RUN && fOn[w] && CLK(w) > stTs[w] && CLK(w) <= fHw[w] ->
       c = CLK(w); record(w, c); stTs[w] = c }

  /* ---- LeaseKeeper.renewNow L177-210, with JdbcSequenceManager.renew executed at once (see lease.pml) ---- */
  :: atomic { ph[w] == RUN && kop[w] == NONE ->
       kReq[w] = max(fHw[w], CLK(w) + TTL);                           /* L182 */
       kSlot[w] = fSlot[w]; kTok[w] = fTok[w];
       renew(w);                                                      /* L185 */
       if
       :: kRes[w] == OK -> fHw[w] = rHw[w]; idle(w)                 /* L201-209: publish the renewed fence */
       :: kRes[w] == AHEAD -> idle(w)                                /* L196-199: fenced at the stored high-water */
       :: kRes[w] == LOST && tok < MAXTOK -> idle(w); sendBorrow(w, 1)      /* L186-195: switchWorker(false) */
       :: kRes[w] == LOST && tok >= MAXTOK -> idle(w)  /* the model's borrows are used up: as EXHAUSTED */
       fi }

  /* ---- close() L313-321 -> LeaseKeeper.returnOnClose L143-155: stop, return with the last timestamp ---- */
  :: atomic { ph[w] == RUN && kop[w] == NONE ->
       kSlot[w] = fSlot[w]; kTok[w] = fTok[w];
       sendReturn(w, stTs[w], fHw[w]); stop(w) }
  /* (kill -9 is a close whose return never reaches the centre: the return above may hang for ever) */
  od
}

/* ================================== time and the faults ================================== */
proctype Env() {
end:
  do
  :: atomic { T < TMAX -> T++ }
#ifdef FAULT_LOSS
  /* the namespace deleted whole: DELETE FROM <table>_ns WHERE ns = ?; DELETE FROM <table> WHERE ns = ? */
  :: atomic { !lostWhole -> lostWhole = 1; nsRec = 0; nsAt = 0; nsSC = 0; printf("T=%d the namespace is deleted\n", T);
       i = 0; do :: i < NS -> rp[i] = 0; hw[i] = 0; ex[i] = 0; own[i] = 0; st[i] = 0; i++ :: else -> break od }
  /* a third borrower's round finds no record and creates it (NamespaceRecords.create L110-126), while a round
     of a worker holds the record it read before the loss: a new record stands in its place */
  :: atomic { lostWhole && !recreated && !nsRec && (sRec[0] || sRec[1]) -> recreated = 1; nsRec = 1; nsAt = T;
       nsSC = 0; i = 0; do :: i < NS -> if :: rp[i] -> nsSC = NS :: else fi; i++ :: else -> break od;
       printf("T=%d another borrower creates the namespace record: created_at %d\n", T, T) }
#endif
#ifdef FAULT_ROW
  /* one slot row deleted (DELETE by hand) */
  :: atomic { !lostRow && (rp[0] || rp[NS - 1]) -> lostRow = 1;
       if :: rp[0] -> i = 0 :: rp[NS - 1] -> i = NS - 1 fi;
       printf("T=%d slot row %d is deleted\n", T, i);
       rp[i] = 0; hw[i] = 0; ex[i] = 0; own[i] = 0; st[i] = 0 }
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
