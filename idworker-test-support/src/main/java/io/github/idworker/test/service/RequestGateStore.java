package io.github.idworker.test.service;

import io.github.idworker.service.RequestGate;

/**
 * One request-gate store under test, seen by {@link AbstractRequestGateTest}: how to make gates over it, as
 * several instances of the service would, and whose clock counts its seconds. Implementations talk to a real
 * store; none of these hooks may fake its behaviour. {@link #close()} removes every record the gates made.
 */
public interface RequestGateStore extends AutoCloseable {

    /**
     * A new, independent gate over the same store with a connection of its own, as another instance of the
     * service would make it.
     */
    RequestGate newGate();

    /**
     * The store's clock, epoch milliseconds, by which it counts an application's seconds. The default is this
     * JVM's clock, right for a store on this machine.
     */
    default long clockMillis() {
        return System.currentTimeMillis();
    }

    @Override
    default void close() throws Exception {
    }
}
