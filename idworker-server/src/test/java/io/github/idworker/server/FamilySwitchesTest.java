package io.github.idworker.server;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.signing.RequestSigner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code idworker.server.families.*}: a family that is off answers 404 and has no beans; a signed family refuses
 * unsigned calls with 401 "unauthorized", refuses an application without a grant for the name with 403, and
 * serves an application with one. Profile {@code demo}, with applications of this test.
 */
class FamilySwitchesTest {

    private static final String SECRET = "switch-" + UUID.randomUUID();
    private static final String NARROW_SECRET = "narrow-" + UUID.randomUUID();
    private static ConfigurableApplicationContext server;
    private static int port;
    private static final RequestSigner ALL = new RequestSigner("all", SECRET);
    private static final RequestSigner NARROW = new RequestSigner("narrow", NARROW_SECRET);

    @BeforeAll
    static void start() {
        server = start("--idworker.server.families.snowflake.signed=true",
                "--idworker.server.families.segment.signed=true",
                "--idworker.server.families.serial.enabled=false",
                "--idworker.server.families.pool.enabled=false",
                "--idworker.service.apps.all.secret=" + SECRET,
                "--idworker.service.apps.all.entities=snowflake:*,segment:*",
                "--idworker.service.apps.narrow.secret=" + NARROW_SECRET,
                "--idworker.service.apps.narrow.entities=segment:order");
        port = server.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ConfigurableApplicationContext start(String... extra) {
        List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--spring.data.redis.port=0",
                "--idworker.namespace=t-" + UUID.randomUUID(), "--idworker.lease.ttl=1s",
                "--idworker.lease.max-skew=100ms", "--idworker.lease.loss-guard=1100ms"));
        arguments.addAll(List.of(extra));
        return new SpringApplicationBuilder(IdWorkerServerApplication.class).profiles("demo")
                .run(arguments.toArray(String[]::new));
    }

    @Test
    void aFamilyThatIsOffAnswers404AndHasNoBeans() throws Exception {
        SampleHttp.Response serial = SampleHttp.get(port, "/serials/order");
        assertThat(serial.status()).isEqualTo(404);
        assertThat(serial.contentType()).startsWith("application/problem+json");
        assertThat(SignedHttp.signedGet(port, ALL, "/pools/user/ids", "count=1").status()).isEqualTo(404);
        assertThat(server.containsBean("serialNumbers")).isFalse();
        assertThat(server.containsBean("idPools")).isFalse();
        assertThat(server.containsBean("serialController")).isFalse();
        assertThat(server.containsBean("poolController")).isFalse();
    }

    @Test
    void aSignedFamilyRefusesUnsignedCallsWith401SayingOnlyUnauthorized() throws Exception {
        for (String path : List.of("/ids/next?count=2", "/ids/decode/1", "/ids/segment/order?count=2")) {
            SignedHttp.Response response = SignedHttp.get(port, path, Map.of());
            assertThat(response.status()).as(path).isEqualTo(401);
            assertThat(response.problem("detail")).as(path).isEqualTo("unauthorized");
        }
        // a signature for another path is no signature for this one
        Map<String, String> forNext = ALL.sign("GET", "/ids/next", "count=2");
        assertThat(SignedHttp.get(port, "/ids/segment/order?count=2", forNext).status()).isEqualTo(401);
    }

    @Test
    void aSignedFamilyServesAnApplicationWithAGrantAndRefusesOneWithout() throws Exception {
        assertThat(SignedHttp.signedGet(port, ALL, "/ids/next", "count=3").ids()).hasSize(3).doesNotHaveDuplicates();
        assertThat(SignedHttp.signedGet(port, ALL, "/ids/segment/ticket", "count=2").ids()).hasSize(2);
        assertThat(SignedHttp.signedGet(port, NARROW, "/ids/segment/order", "count=2").ids()).hasSize(2);

        SignedHttp.Response noGrant = SignedHttp.signedGet(port, NARROW, "/ids/segment/ticket", "count=2");
        assertThat(noGrant.status()).isEqualTo(403);
        assertThat(SignedHttp.signedGet(port, NARROW, "/ids/next", "count=1").status()).isEqualTo(403);
        // a replayed signed call is refused like any other unauthenticated one
        Map<String, String> once = ALL.sign("GET", "/ids/next", "count=1");
        assertThat(SignedHttp.get(port, "/ids/next?count=1", once).status()).isEqualTo(200);
        assertThat(SignedHttp.get(port, "/ids/next?count=1", once).status()).isEqualTo(401);
    }

    @Test
    void anUnsignedFamilyServesWithoutASignature() throws Exception {
        assertThat(SampleHttp.get(port, "/ids/sequence/order?count=2").ids()).hasSize(2);
    }

    @Test
    void poolsCannotBeUnsignedAndAnUnknownKeyUnderServerFailsTheStartupNamingIt() {
        Throwable unsigned = catchThrowable(() -> start("--idworker.server.families.pool.signed=false").close());
        assertThat(unsigned).isInstanceOf(IdWorkerConfigurationException.class)
                .hasMessageStartingWith("idworker.server.families.pool.signed: must be true");

        Throwable unknown = catchThrowable(() -> start("--idworker.server.families.snowflake.signd=true").close());
        assertThat(unknown).as("a misspelt key").isInstanceOf(BindException.class)
                .hasMessageContaining("idworker.server");
        assertThat(unknown).rootCause().hasMessageContaining("signd");

        Throwable centre = catchThrowable(() -> start("--idworker.server.centre=etcd").close());
        assertThat(centre).as("an unknown centre").isInstanceOf(BindException.class)
                .hasMessageContaining("idworker.server.centre");
    }
}
