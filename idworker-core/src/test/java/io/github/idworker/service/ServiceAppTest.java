package io.github.idworker.service;

import io.github.idworker.IdWorkerConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An application of the ID service: every check names {@code idworker.service.apps.<key>.<field>} and never
 * repeats a secret; a valid application never shows its secrets in {@link ServiceApp#toString()}.
 */
class ServiceAppTest {

    private static final String SECRET = "Cur3nt-S3cret-of-demo";
    private static final String PREVIOUS = "Old-S3cret-of-demo-app";

    /** A valid application most tests start from. */
    private static ServiceApp.Builder demo() {
        return ServiceApp.builder("demo").name("Demo shop").secret(SECRET).entities("user", "order")
                .maxPerSecond(500);
    }

    /**
     * Asserts that building fails naming {@code idworker.service.apps.demo.<field>}, first in the message, and
     * that no text of {@code secrets} is in the message.
     */
    private static void failsNaming(String field, Executable build, String... secrets) {
        failsNamingProperty("idworker.service.apps.demo." + field, build, secrets);
    }

    private static void failsNamingProperty(String property, Executable build, String... secrets) {
        assertThatThrownBy(build::execute)
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class,
                        e -> assertThat(e.getProperty()).isEqualTo(property))
                .hasMessageStartingWith(property + ": ")
                .satisfies(e -> {
                    for (String secret : secrets) {
                        assertThat(e.getMessage()).doesNotContain(secret);
                    }
                });
    }

    @Test
    void aValidApplicationKeepsEveryField() {
        ServiceApp app = demo().previousSecret(PREVIOUS).enabled(false).build();
        assertThat(app.appKey()).isEqualTo("demo");
        assertThat(app.name()).isEqualTo("Demo shop");
        assertThat(app.secret()).isEqualTo(SECRET);
        assertThat(app.previousSecret()).isEqualTo(PREVIOUS);
        assertThat(app.entities()).containsExactly("user", "order");
        assertThat(app.maxPerSecond()).isEqualTo(500);
        assertThat(app.enabled()).isFalse();
        assertThat(app.toBuilder().build().sameAs(app)).isTrue();
        assertThat(app.toBuilder().enabled(true).build().sameAs(app)).isFalse();
        assertThat(app.toBuilder().previousSecret(null).build().sameAs(app)).isFalse();
    }

    @Test
    void defaultsAreTheKeyAsNameTenThousandPerSecondAndEnabled() {
        ServiceApp app = ServiceApp.builder("demo").secret(SECRET).entities("*").build();
        assertThat(app.name()).isEqualTo("demo");
        assertThat(app.maxPerSecond()).isEqualTo(ServiceApp.DEFAULT_MAX_PER_SECOND).isEqualTo(10_000);
        assertThat(app.enabled()).isTrue();
        assertThat(app.previousSecret()).isNull();
        assertThat(demo().name("  ").build().name()).isEqualTo("demo");
        assertThat(demo().name("  Shop  ").build().name()).isEqualTo("Shop");
    }

    @Test
    void anInvalidKeyIsRefusedNamingTheApplicationsProperty() {
        for (String key : new String[] {null, "", "has space", "a/b", "ü", "k".repeat(65), "{tag}"}) {
            failsNamingProperty("idworker.service.apps." + key, () -> ServiceApp.builder(key).secret(SECRET)
                    .entities("*").build(), SECRET);
        }
        assertThat(ServiceApp.builder("k".repeat(64)).secret(SECRET).entities("*").build().appKey()).hasSize(64);
        assertThat(ServiceApp.builder("A-z_0.9").secret(SECRET).entities("*").build().appKey()).isEqualTo("A-z_0.9");
    }

    @Test
    void aNameOfMoreThan128CharactersIsRefused() {
        failsNaming("name", () -> demo().name("n".repeat(129)).build(), SECRET);
        assertThat(demo().name("n".repeat(128)).build().name()).hasSize(128);
    }

    @Test
    void theSecretMustBeSetAndIsNeverRepeated() {
        failsNaming("secret", () -> demo().secret(null).build());
        failsNaming("secret", () -> demo().secret("").build());
        assertThatThrownBy(() -> demo().secret(null).build()).hasMessageContaining("must be set");
    }

    @Test
    void secretsOfSixteenTo256PrintableCharactersPassAndOthersAreRefusedWithoutTheirValue() {
        String fifteen = "Sh0rt-S3cret-15";
        String tooLong = "L".repeat(200) + "0ng-S3cret-tail-".repeat(4);
        String withSpace = "S3cret with a space";
        String withTab = "S3cret\twith-a-tab!";
        String nonAscii = "S3cret-wïth-umlaut";
        String withNewline = "S3cret-line-one\nline-two";
        for (String bad : List.of(fifteen, tooLong, withSpace, withTab, nonAscii, withNewline)) {
            failsNaming("secret", () -> demo().secret(bad).build(), bad);
            failsNaming("previous-secret", () -> demo().previousSecret(bad).build(), bad, SECRET);
        }
        assertThatThrownBy(() -> demo().secret(fifteen).build())
                .hasMessageContaining("must be 16 to 256 characters, was 15");
        assertThatThrownBy(() -> demo().secret(withSpace).build()).hasMessageContaining("character 7 is not");
        assertThat(demo().secret("x".repeat(16)).build().secret()).hasSize(16);
        assertThat(demo().secret("!~" + "x".repeat(254)).build().secret()).hasSize(256);
    }

    @Test
    void anEmptyPreviousSecretMeansNoRotation() {
        assertThat(demo().previousSecret("").build().previousSecret()).isNull();
        assertThat(demo().previousSecret(null).build().secrets()).containsExactly(SECRET);
    }

    @Test
    void secretsHoldsTheCurrentSecretThenThePreviousOne() {
        assertThat(demo().build().secrets()).containsExactly(SECRET);
        List<String> rotating = demo().previousSecret(PREVIOUS).build().secrets();
        assertThat(rotating).containsExactly(SECRET, PREVIOUS);
        assertThatThrownBy(() -> rotating.add("another-secret-value")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void toStringNeverShowsASecret() {
        ServiceApp rotating = demo().previousSecret(PREVIOUS).build();
        assertThat(rotating.toString()).contains("demo", "Demo shop", "user", "order", "500", "rotating")
                .doesNotContain(SECRET).doesNotContain(PREVIOUS);
        assertThat(demo().build().toString()).doesNotContain(SECRET).doesNotContain("rotating");
    }

    @Test
    void entitiesMustNameAtLeastOneValidEntity() {
        failsNaming("entities", () -> demo().entities(List.of()).build(), SECRET);
        failsNaming("entities", () -> demo().entities(" ", "").build(), SECRET);
        failsNaming("entities", () -> demo().entities((java.util.Collection<String>) null).build(), SECRET);
        failsNaming("entities", () -> demo().entities("user", "bad entity").build(), SECRET);
        failsNaming("entities", () -> demo().entities("e".repeat(65)).build(), SECRET);
        failsNaming("entities", () -> demo().entities("user,order").build(), SECRET);
        assertThatThrownBy(() -> demo().entities(List.of()).build()).hasMessageContaining("'*'");
    }

    @Test
    void theStarAllowsEveryEntityAndAListOnlyItsOwn() {
        ServiceApp all = demo().entities("*").build();
        assertThat(all.entities()).containsExactly("*");
        assertThat(all.allows("user")).isTrue();
        assertThat(all.allows("anything-else")).isTrue();

        ServiceApp listed = demo().entities(" user ", "order", "user").build();
        assertThat(listed.entities()).containsExactly("user", "order");
        assertThat(listed.allows("user")).isTrue();
        assertThat(listed.allows("order")).isTrue();
        assertThat(listed.allows("User")).as("entity keys are case-sensitive").isFalse();
        assertThat(listed.allows("invoice")).isFalse();
        assertThat(listed.allows("*")).as("a list does not grant the star").isFalse();
        assertThatThrownBy(() -> listed.entities().add("invoice")).isInstanceOf(UnsupportedOperationException.class);

        ServiceApp starAmongOthers = demo().entities("user", "*").build();
        assertThat(starAmongOthers.entities()).isEqualTo(Set.of("*"));
        assertThat(starAmongOthers.allows("invoice")).isTrue();
    }

    @Test
    void maxPerSecondMustBeAtLeastOne() {
        failsNaming("max-per-second", () -> demo().maxPerSecond(0).build(), SECRET);
        failsNaming("max-per-second", () -> demo().maxPerSecond(-5).build(), SECRET);
        assertThatThrownBy(() -> demo().maxPerSecond(0).build()).hasMessageContaining("was 0");
        assertThat(demo().maxPerSecond(1).build().maxPerSecond()).isEqualTo(1);
    }

    @Test
    void thePropertyOfAFieldIsUnderTheApplicationsKey() {
        assertThat(ServiceApp.property("demo", "max-per-second")).isEqualTo("idworker.service.apps.demo.max-per-second");
        assertThat(ServiceApp.property("demo", "")).isEqualTo("idworker.service.apps.demo");
    }

    @Test
    void grantsOfOtherFamiliesNameTheFamilyAndANameOrTheStar() {
        ServiceApp app = demo().entities("user", "segment:order", "serial:*", "snowflake:*", "pool:invoice").build();
        assertThat(app.allows("segment", "order")).isTrue();
        assertThat(app.allows("segment", "ticket")).as("another tag of a granted family").isFalse();
        assertThat(app.allows("sequence", "order")).as("the same name in another family").isFalse();
        assertThat(app.allows("serial", "anything")).isTrue();
        assertThat(app.allows("snowflake", "next")).isTrue();
        assertThat(app.allows("pool", "user")).as("an unqualified grant is a pool entity").isTrue();
        assertThat(app.allows("invoice")).as("pool:invoice").isTrue();
        assertThat(app.allows("segment", "user")).as("an unqualified grant is not a segment tag").isFalse();

        ServiceApp poolsOnly = demo().entities("*").build();
        assertThat(poolsOnly.allows("pool", "anything")).isTrue();
        assertThat(poolsOnly.allows("segment", "order")).as("'*' is every pool entity, nothing else").isFalse();
        assertThat(poolsOnly.allows("snowflake", "next")).isFalse();

        ServiceApp starAndFamilies = demo().entities("user", "*", "pool:order", "sequence:*").build();
        assertThat(starAndFamilies.entities()).containsExactly("*", "sequence:*");
        assertThat(starAndFamilies.allows("sequence", "x")).isTrue();
    }

    @Test
    void aGrantOfAnUnknownFamilyOrABadNameIsRefusedNamingTheEntitiesProperty() {
        failsNaming("entities", () -> demo().entities("segments:order").build(), SECRET);
        failsNaming("entities", () -> demo().entities("segment:").build(), SECRET);
        failsNaming("entities", () -> demo().entities("segment:bad name").build(), SECRET);
        failsNaming("entities", () -> demo().entities(":order").build(), SECRET);
        assertThatThrownBy(() -> demo().entities("segments:order").build())
                .hasMessageContaining("[pool, segment, sequence, serial, snowflake]");
    }
}
