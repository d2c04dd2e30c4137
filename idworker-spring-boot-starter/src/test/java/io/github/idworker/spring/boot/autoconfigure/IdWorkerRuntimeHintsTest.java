package io.github.idworker.spring.boot.autoconfigure;

import com.zaxxer.hikari.HikariConfig;
import io.github.idworker.spring.annotation.IdAsString;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Lua script and DDL file that the class path holds under {@code io/github/idworker/} (as shipped by
 * idworker-redis and idworker-jdbc) is covered by a resource hint of {@link IdWorkerRuntimeHints}, so a new script
 * or dialect without a matching pattern fails here rather than in a native image; the registrar is found through
 * {@code aot.factories}; the reflective targets are registered.
 */
class IdWorkerRuntimeHintsTest {

    private final RuntimeHints hints = registered();

    private static RuntimeHints registered() {
        RuntimeHints hints = new RuntimeHints();
        new IdWorkerRuntimeHints().registerHints(hints, IdWorkerRuntimeHintsTest.class.getClassLoader());
        return hints;
    }

    @Test
    void everyShippedLuaScriptAndDdlFileIsCovered() throws IOException {
        List<String> lua = shipped("lua");
        List<String> ddl = shipped("sql");
        // the counts of today's files as a floor: an empty search (a moved folder) must not pass as "all covered"
        assertThat(lua).as("Lua scripts on the class path").hasSizeGreaterThanOrEqualTo(15)
                .contains("io/github/idworker/redis/lua/lock-acquire.lua",
                        "io/github/idworker/lease/redis/lua/lease-borrow.lua");
        assertThat(ddl).as("DDL files on the class path").hasSizeGreaterThanOrEqualTo(15)
                .contains("io/github/idworker/lease/jdbc/schema-postgresql.sql");
        List<String> uncovered = new ArrayList<>();
        for (String path : concat(lua, ddl)) {
            if (!RuntimeHintsPredicates.resource().forResource(path).test(hints)) {
                uncovered.add(path);
            }
        }
        assertThat(uncovered).as("class-path files without a resource hint in IdWorkerRuntimeHints").isEmpty();
    }

    @Test
    void theConfigurationMetadataIsCoveredForPropertySuggestions() {
        assertThat(RuntimeHintsPredicates.resource().forResource(IdWorkerRuntimeHints.METADATA)).accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("io/github/idworker/lease/jdbc/notes.txt"))
                .as("a pattern too wide").rejects(hints);
    }

    @Test
    void theReflectiveTargetsAreRegistered() {
        for (String getter : List.of("getJdbcUrl", "getUsername", "getPassword")) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(HikariConfig.class, getter))
                    .as(getter).accepts(hints);
        }
        List<java.lang.reflect.Method> customizers = java.util.Arrays.stream(
                        org.springframework.data.redis.connection.jedis.JedisClientConfiguration.class.getMethods())
                .filter(m -> JedisCallBound.CUSTOMIZER_GETTERS.contains(m.getName())).toList();
        for (java.lang.reflect.Method getter : customizers) { // none on Spring Data Redis 4.0
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(getter)).as(getter.getName())
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onType(IdAsString.Writer.class)
                .withMemberCategory(org.springframework.aot.hint.MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(IdAsString.Reader.class)
                .withMemberCategory(org.springframework.aot.hint.MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                .accepts(hints);
    }

    @Test
    void aotFactoriesRegistersIt() {
        List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
                .forResourceLocation("META-INF/spring/aot.factories").load(RuntimeHintsRegistrar.class);
        assertThat(registrars).hasAtLeastOneElementOfType(IdWorkerRuntimeHints.class);
    }

    /** Paths from {@code io/github/idworker/} on of every {@code .<extension>} file the class path holds there. */
    private static List<String> shipped(String extension) throws IOException {
        Resource[] found = new PathMatchingResourcePatternResolver()
                .getResources("classpath*:io/github/idworker/**/*." + extension);
        List<String> paths = new ArrayList<>();
        for (Resource resource : found) {
            String url = resource.getURL().toString();
            paths.add(url.substring(url.lastIndexOf("io/github/idworker/")));
        }
        return paths.stream().distinct().sorted().toList();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
