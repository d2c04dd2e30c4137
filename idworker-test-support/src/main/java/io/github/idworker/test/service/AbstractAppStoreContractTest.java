package io.github.idworker.test.service;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.service.AppStore;
import io.github.idworker.service.ServiceApp;
import io.github.idworker.test.Racers;
import io.github.idworker.test.StderrLog;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link AppStore} keeps, run against a real store. A store's test extends this class and
 * returns its store from {@link #createStore()}; nothing else is needed, for example
 * {@code class MyDbAppStoreTest extends AbstractAppStoreContractTest { protected AppStoreStore createStore() {
 * return new MyDbStore(); } }}.
 *
 * <p>What it checks: every field of an application (both secrets, the entities as {@code *} or a list, the limit,
 * {@code enabled}) comes back from {@link AppStore#find} and {@link AppStore#findAll} as saved, read by another
 * store instance; {@link AppStore#save} replaces every field; {@link AppStore#saveIfMissing} keeps the stored row
 * and, raced by {@value #RACERS} store instances over one key, stores one row and returns it to every caller;
 * concurrent saves of one new key end with one of them; keys differing in case are two applications; a row an
 * operator made invalid is skipped by both reads while the other rows load, logged naming its key, and its
 * secret appears in no log line or exception; the schema is created idempotently and a missing table fails the
 * check naming the property that creates it; descriptions carry no credentials.
 *
 * <p>Secrets must not leak into logs: {@link #logDuring} captures what the store logs to the console
 * ({@link StderrLog}); override it when your logging backend writes elsewhere.
 *
 * <p>Each test uses fresh random application keys and deletes them afterwards; the store drops what it
 * created when closed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class AbstractAppStoreContractTest {

    /** Store instances racing over one key, as that many instances of the service starting together. */
    protected static final int RACERS = 8;

    private final List<String> keys = new ArrayList<>();
    protected AppStoreStore store;

    /** The store under test; called once per test. */
    protected abstract AppStoreStore createStore() throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (String key : keys) {
                store.deleteApp(key);
            }
        } finally {
            store.close();
        }
    }

    /** What the store logs while {@code action} runs; by default what it writes to the console. */
    protected String logDuring(Runnable action) {
        return StderrLog.during(action);
    }

    /** A fresh application key, deleted after the test. */
    protected String newKey() {
        String key = "a-" + UUID.randomUUID().toString().substring(0, 13);
        keys.add(key);
        return key;
    }

    /** A fresh secret of 32 characters, distinct enough to search for in logs. */
    protected static String newSecret() {
        return "S3cret_" + UUID.randomUUID().toString().replace("-", "").substring(0, 25);
    }

    /** An enabled application under a fresh key, allowed for two entities, with one secret. */
    protected ServiceApp.Builder newApp() {
        return ServiceApp.builder(newKey()).name("orders service").secret(newSecret()).entities("user", "order")
                .maxPerSecond(2_000);
    }

    /** The stored applications of this test's keys, in the order {@code findAll} returned them. */
    private List<ServiceApp> mine(List<ServiceApp> all) {
        return all.stream().filter(a -> keys.contains(a.appKey())).toList();
    }

    /** Asserts that {@code actual} holds every field of {@code expected}; secrets are never printed. */
    protected static void assertSame(ServiceApp actual, ServiceApp expected) {
        assertThat(actual).as("stored application").isNotNull();
        assertThat(actual.appKey()).isEqualTo(expected.appKey());
        assertThat(actual.name()).as("name of %s", expected.appKey()).isEqualTo(expected.name());
        assertThat(actual.secret().equals(expected.secret())).as("secret of %s as saved", expected.appKey()).isTrue();
        assertThat(actual.previousSecret() == null).as("previous secret of %s is null", expected.appKey())
                .isEqualTo(expected.previousSecret() == null);
        if (expected.previousSecret() != null) {
            assertThat(expected.previousSecret().equals(actual.previousSecret()))
                    .as("previous secret of %s as saved", expected.appKey()).isTrue();
        }
        assertThat(actual.entities()).as("entities of %s", expected.appKey())
                .containsExactlyElementsOf(expected.entities());
        assertThat(actual.maxPerSecond()).as("max-per-second of %s", expected.appKey())
                .isEqualTo(expected.maxPerSecond());
        assertThat(actual.enabled()).as("enabled of %s", expected.appKey()).isEqualTo(expected.enabled());
        assertThat(actual.sameAs(expected)).as("%s same as %s", actual, expected).isTrue();
    }

    /** Runs {@code task.apply(i)} on {@code threads} threads released together; their results in order. */
    protected static <T> List<T> onThreads(int threads, IntFunction<Callable<T>> task) throws InterruptedException {
        return Racers.race(threads, task, 50, TimeUnit.SECONDS);
    }

    private void assertNoCredentials(@Nullable String text) {
        assertThat(text).doesNotContainPattern("//[^/\\s]*@");
        for (String credential : store.credentials()) {
            assertThat(text).doesNotContain(credential);
        }
    }

    @Test
    void everyFieldComesBackFromFindAndFindAllAsSaved() {
        ServiceApp listed = newApp().build();
        ServiceApp everyEntityRotatingDisabled = newApp().name("billing").entities("*").previousSecret(newSecret())
                .maxPerSecond(1).enabled(false).build();
        ServiceApp longest = ServiceApp.builder(newKey() + "-" + "k".repeat(48)).name("n".repeat(128))
                .secret("!~" + "x".repeat(254)).previousSecret("#" + "y".repeat(255))
                .entities("e.1", "E_2", "e-3", "f".repeat(64)).maxPerSecond(Integer.MAX_VALUE).build();
        keys.add(longest.appKey());
        AppStore writer = store.newStore();
        List<ServiceApp> saved = List.of(listed, everyEntityRotatingDisabled, longest);
        saved.forEach(writer::save);

        AppStore reader = store.newStore();
        for (ServiceApp app : saved) {
            assertSame(reader.find(app.appKey()).orElseThrow(), app);
        }
        List<ServiceApp> all = mine(reader.findAll());
        List<ServiceApp> byKey = saved.stream().sorted(Comparator.comparing(ServiceApp::appKey)).toList();
        assertThat(all).as("findAll, ordered by key").extracting(ServiceApp::appKey)
                .containsExactlyElementsOf(byKey.stream().map(ServiceApp::appKey).toList());
        for (int i = 0; i < all.size(); i++) {
            assertSame(all.get(i), byKey.get(i));
        }
        assertThat(reader.findAll()).extracting(ServiceApp::appKey).as("ordered by key")
                .isSortedAccordingTo(Comparator.naturalOrder());
    }

    /**
     * A write the database refuses (here by an operator's CHECK constraint) fails without the secrets in any
     * message of the failure or its causes: PostgreSQL quotes the whole failing row in its own message.
     */
    @Test
    void aWriteTheDatabaseRefusesNamesNoSecret() {
        store.refuseMaxPerSecondAbove(100);
        String secret = newSecret();
        String previous = newSecret();
        ServiceApp app = newApp().secret(secret).previousSecret(previous).maxPerSecond(1000).build();
        AppStore writer = store.newStore();
        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> writer.save(app));
        assertThat(failure).as("a save the database refuses").isNotNull();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain(secret).doesNotContain(previous);
            assertThat(t.toString()).doesNotContain(secret).doesNotContain(previous);
            assertNoCredentials(String.valueOf(t.getMessage()));
        }
    }

    @Test
    void findOfAnUnknownKeyIsEmpty() {
        assertThat(store.newStore().find(newKey())).isEmpty();
    }

    @Test
    void saveReplacesEveryField() {
        ServiceApp first = newApp().previousSecret(newSecret()).build();
        store.newStore().save(first);
        ServiceApp changed = ServiceApp.builder(first.appKey()).name("renamed").secret(newSecret()).entities("*")
                .maxPerSecond(7).enabled(false).build();
        store.newStore().save(changed);
        assertSame(store.newStore().find(first.appKey()).orElseThrow(), changed);

        ServiceApp back = changed.toBuilder().name("again").previousSecret(changed.secret()).secret(newSecret())
                .entities("invoice").maxPerSecond(70_000).enabled(true).build();
        store.newStore().save(back);
        assertSame(store.newStore().find(first.appKey()).orElseThrow(), back);
        assertThat(mine(store.newStore().findAll())).hasSize(1);
    }

    @Test
    void saveIfMissingKeepsTheStoredRowAndInsertsANewOne() {
        ServiceApp stored = newApp().build();
        AppStore s = store.newStore();
        s.save(stored);
        ServiceApp proposal = stored.toBuilder().name("other").secret(newSecret()).entities("*").maxPerSecond(3)
                .enabled(false).build();
        assertSame(store.newStore().saveIfMissing(proposal), stored);
        assertSame(store.newStore().find(stored.appKey()).orElseThrow(), stored);

        ServiceApp fresh = newApp().previousSecret(newSecret()).build();
        assertSame(store.newStore().saveIfMissing(fresh), fresh);
        assertSame(store.newStore().find(fresh.appKey()).orElseThrow(), fresh);
    }

    @Test
    void eightConcurrentSaveIfMissingOfOneKeyStoreOneRowAndReturnItToEveryCaller() throws Exception {
        String key = newKey();
        List<ServiceApp> proposals = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            proposals.add(ServiceApp.builder(key).name("instance " + i).secret(newSecret()).entities("e" + i)
                    .maxPerSecond(100 + i).build());
        }
        List<AppStore> stores = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            stores.add(store.newStore());
        }
        List<ServiceApp> returned = onThreads(RACERS, t -> () -> stores.get(t).saveIfMissing(proposals.get(t)));
        ServiceApp stored = store.newStore().find(key).orElseThrow();
        assertThat(proposals.stream().filter(p -> p.sameAs(stored)).count()).as("the row is one of the proposals")
                .isEqualTo(1);
        for (ServiceApp r : returned) {
            assertSame(r, stored);
        }
        assertThat(mine(store.newStore().findAll())).as("rows of the key").hasSize(1);
    }

    @Test
    void eightConcurrentSavesOfOneNewKeyEndWithOneOfThem() throws Exception {
        String key = newKey();
        List<ServiceApp> proposals = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            proposals.add(ServiceApp.builder(key).name("instance " + i).secret(newSecret()).entities("e" + i)
                    .maxPerSecond(100 + i).build());
        }
        onThreads(RACERS, t -> () -> {
            store.newStore().save(proposals.get(t));
            return null;
        });
        ServiceApp stored = store.newStore().find(key).orElseThrow();
        assertThat(proposals.stream().filter(p -> p.sameAs(stored)).count()).as("the row is one of the saves")
                .isEqualTo(1);
        assertThat(mine(store.newStore().findAll())).hasSize(1);
    }

    /** Application keys are case-sensitive, as the Redis keys built from them are (a case-insensitive collation would merge them). */
    @Test
    void keysDifferingOnlyInCaseAreTwoApplications() {
        ServiceApp lower = newApp().build();
        ServiceApp upper = ServiceApp.builder(lower.appKey().toUpperCase(Locale.ROOT)).secret(newSecret())
                .entities("*").maxPerSecond(9).build();
        keys.add(upper.appKey());
        store.newStore().save(lower);
        store.newStore().save(upper);
        assertSame(store.newStore().find(lower.appKey()).orElseThrow(), lower);
        assertSame(store.newStore().find(upper.appKey()).orElseThrow(), upper);
        assertThat(mine(store.newStore().findAll())).hasSize(2);
    }

    /**
     * Rows an operator wrote with a value no {@link ServiceApp} may hold are skipped by both reads, logged naming
     * their key, with no secret in any log line; the valid rows around them load. {@code saveIfMissing} over such
     * a row fails naming the field, without the secret; {@code save} replaces it.
     */
    @Test
    void aRowAnOperatorMadeInvalidIsSkippedWithoutShowingItsSecretWhileTheOthersLoad() {
        ServiceApp valid = newApp().build();
        ServiceApp disabled = newApp().enabled(false).build();
        String shortSecret = "s3Kr!";
        AppRow template = AppRow.of(newApp().previousSecret(newSecret()).build());
        String keyWithSpace = newKey() + " x";
        keys.add(keyWithSpace);
        List<AppRow> invalid = List.of(
                template.withSecret(shortSecret),
                new AppRow(keyWithSpace, "spaced", newSecret(), null, "*", 10, true),
                AppRow.of(newApp().previousSecret(newSecret()).build()).withMaxPerSecond(0),
                AppRow.of(newApp().build()).withPreviousSecret("0ld!"),
                AppRow.of(newApp().build()).withSecret("S3cret with spaces inside"),
                AppRow.of(newApp().build()).withEntities("user,bad entity"),
                AppRow.of(newApp().build()).withEntities(""));
        List<String> secrets = new ArrayList<>(List.of(valid.secret(), disabled.secret()));
        for (AppRow row : invalid) {
            secrets.add(row.secret());
            if (row.previousSecret() != null) {
                secrets.add(row.previousSecret());
            }
        }
        store.newStore().save(valid);
        store.newStore().save(disabled);
        invalid.forEach(store::insertRow);

        AppStore reader = store.newStore();
        AtomicReference<List<ServiceApp>> all = new AtomicReference<>();
        String log = logDuring(() -> all.set(reader.findAll()));
        List<ServiceApp> loaded = mine(Objects.requireNonNull(all.get()));
        assertThat(loaded).extracting(ServiceApp::appKey).as("the valid rows, enabled or not")
                .containsExactlyInAnyOrder(valid.appKey(), disabled.appKey());
        for (AppRow row : invalid) {
            assertThat(log).as("the log names the skipped row").contains(row.appKey());
        }
        List<Optional<ServiceApp>> found = new ArrayList<>();
        log += logDuring(() -> invalid.forEach(row -> found.add(reader.find(row.appKey()))));
        assertThat(found).as("find skips them too").allSatisfy(f -> assertThat(f).isEmpty());
        assertSame(reader.find(valid.appKey()).orElseThrow(), valid);

        AppRow shortOne = invalid.get(0);
        ServiceApp proposal = ServiceApp.builder(shortOne.appKey()).secret(newSecret()).entities("*").build();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        log += logDuring(() -> failure.set(catchThrowable(() -> reader.saveIfMissing(proposal))));
        assertThat(failure.get()).as("saveIfMissing over an invalid row")
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                        .isEqualTo(ServiceApp.property(shortOne.appKey(), "secret")))
                .hasMessageContaining(shortOne.appKey());
        secrets.add(proposal.secret());
        for (Throwable t = failure.get(); t != null; t = t.getCause()) {
            for (String secret : secrets) {
                assertThat(String.valueOf(t.getMessage())).as("exception message").doesNotContain(secret);
            }
        }
        for (String secret : secrets) {
            assertThat(log).as("what the store logged").doesNotContain(secret);
        }

        reader.save(proposal);
        assertSame(store.newStore().find(shortOne.appKey()).orElseThrow(), proposal);
    }

    private static @Nullable Throwable catchThrowable(Runnable action) {
        try {
            action.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @Test
    void creatingTheSchemaAgainKeepsTheRows() {
        ServiceApp app = newApp().build();
        store.newStore().save(app);
        store.createSchemaIfMissing();
        store.createSchemaIfMissing();
        assertSame(store.newStore().find(app.appKey()).orElseThrow(), app);
    }

    @Test
    void aMissingTableFailsTheSchemaCheckNamingTheInitializeSchemaProperty() {
        String table = "no_app_" + UUID.randomUUID().toString().substring(0, 8);
        assertThatThrownBy(() -> store.verifySchemaOf(table))
                .isInstanceOfSatisfying(IdWorkerConfigurationException.class, e -> assertThat(e.getProperty())
                        .isEqualTo("idworker.service.initialize-schema"))
                .hasMessageContaining(table)
                .hasMessageContaining("idworker.service.initialize-schema")
                .satisfies(e -> assertNoCredentials(e.getMessage()));
    }

    @Test
    void theDescriptionNamesTheStoreWithoutCredentials() {
        String description = store.newStore().description();
        assertThat(description).isNotBlank();
        assertNoCredentials(description);
    }
}
