package io.github.idworker.server;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.SerialMode;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code idworker.server.*}: which families of IDs this server hands out over HTTP, which of them only to signed
 * applications, and the centre that leases the snowflake worker's id. Guarantees: an unknown key or value under
 * {@code idworker.server} fails the startup naming it, and a family that is off has no endpoint (404) and opens
 * no connection for its sake.
 */
@ConfigurationProperties(prefix = IdServerProperties.PREFIX, ignoreUnknownFields = false)
public class IdServerProperties {

    static final String PREFIX = "idworker.server";
    static final String FAMILIES = PREFIX + ".families";

    /** The centre that leases the snowflake worker's id: redis, db or zookeeper. */
    private CenterMode centre = CenterMode.REDIS;

    /** The families of IDs served, each switchable. */
    private final Families families = new Families();

    public CenterMode getCentre() {
        return centre;
    }

    public void setCentre(CenterMode centre) {
        this.centre = centre;
    }

    public Families getFamilies() {
        return families;
    }

    /** Checks what binding alone cannot: pools are always signed. */
    void check() {
        if (families.pool.isEnabled() && !families.pool.isSigned()) {
            throw new IdWorkerConfigurationException(FAMILIES + ".pool.signed", "must be true: pools hand out IDs "
                    + "to signed applications only (turn the family off with " + FAMILIES + ".pool.enabled=false)");
        }
    }

    /** {@code idworker.server.families.*}: one switch per family. */
    public static class Families {

        /** {@code GET /ids/next}, {@code GET /ids/decode/{id}}: the leased snowflake worker. */
        private final Family snowflake = new Family(false);
        /** {@code GET /ids/segment/{tag}}: in-process segments over the segment table. */
        private final Family segment = new Family(false);
        /** {@code GET /ids/sequence/{tag}}: strictly ordered sequences in Redis, refilled from the segment table. */
        private final Family sequence = new Family(false);
        /** {@code GET /serials/{rule}}: serial numbers of the registered rules. */
        private final Serial serial = new Serial();
        /** {@code GET /pools/{entity}/ids}: ID pools in Redis, to signed applications only. */
        private final Family pool = new Family(true);

        public Family getSnowflake() {
            return snowflake;
        }

        public Family getSegment() {
            return segment;
        }

        public Family getSequence() {
            return sequence;
        }

        public Serial getSerial() {
            return serial;
        }

        public Family getPool() {
            return pool;
        }
    }

    /** One family: whether it is served, and whether only to signed applications. */
    public static class Family {

        /** False: the family's endpoints answer 404 and its stores are not touched. */
        private boolean enabled = true;

        /**
         * True: every call needs an application's signature (HMAC, as for pools) and a grant for the family
         * ({@code <family>:<name>} or {@code <family>:*} in {@code idworker.service.apps.<key>.entities}); unsigned
         * calls get 401.
         */
        private boolean signed;

        Family(boolean signed) {
            this.signed = signed;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isSigned() {
            return signed;
        }

        public void setSigned(boolean signed) {
            this.signed = signed;
        }
    }

    /** The serial family, whose numbers come from one stock in Redis (strict) or from in-process ranges (local). */
    public static class Serial extends Family {

        /** strict: one stock per rule in Redis, shared by every instance; local: in process, without Redis. */
        private SerialMode mode = SerialMode.STRICT;

        Serial() {
            super(false);
        }

        public SerialMode getMode() {
            return mode;
        }

        public void setMode(SerialMode mode) {
            this.mode = mode;
        }
    }
}
