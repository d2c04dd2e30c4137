package io.github.idworker.server;

import io.github.idworker.signing.RequestSigner;
import io.github.idworker.snowflake.AbstractIdWorker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operators' status page in a real browser: Debian's headless Chromium driven through
 * {@code /usr/bin/chromedriver} (packages {@code chromium} and {@code chromium-driver}, installed by
 * {@code .ci/run}; nothing is downloaded). The page must show, from the Actuator endpoint read by its own script,
 * the worker id this instance leased and a segment tag it serves, refresh itself, move its plots and show a rate
 * while a load runs, and warn once the pool {@code user} is drained below its threshold (signed takes). Screenshots
 * at rest and under load are left at {@code target/status-at-rest.png} and {@code target/status-under-load.png}
 * (the ones in docs/images are copies). Also checks, in the browser's own JavaScript, that {@code ?as=string}
 * identifiers survive {@code JSON.parse} digit for digit.
 */
@Tag("real-services")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms",
        // a small pool that a few signed takes drain below its threshold (1,000), never refilled during the test
        "idworker.pool.entities.user.max-pool-size=2000", "idworker.pool.entities.user.step=100",
        "idworker.pool.entities.user.threshold-percent=50", "idworker.pool.entities.user.check-interval=1h",
        "idworker.pool.entities.user.max-per-request=100",
        "idworker.service.apps.demo.secret=" + StatusPageBrowserTest.SECRET})
class StatusPageBrowserTest {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    static final String SECRET = "status-page-secret-0123456789abcdef";
    static final String POOL_PATH = "/pools/user/ids";
    /** The load: this many callers, each for at most LOAD_TIME and LOAD_CALLS calls. */
    static final int LOAD_THREADS = 3;
    static final Duration LOAD_TIME = Duration.ofSeconds(12);
    static final int LOAD_CALLS = 3_000;

    @LocalServerPort
    int port;

    @Autowired
    AbstractIdWorker worker;

    @TempDir
    Path profile;

    private WebDriver browser;

    @BeforeEach
    void openBrowser() {
        assertThat(new File(CHROMIUM).canExecute()).as("Debian's chromium at " + CHROMIUM
                + " (apt-get install chromium chromium-driver)").isTrue();
        assertThat(new File(CHROMEDRIVER).canExecute()).as("Debian's chromium-driver at " + CHROMEDRIVER
                + " (apt-get install chromium-driver)").isTrue();
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        // the flags keep a root, network-less CI machine's Chromium quiet: no sandbox (root), no calls home
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,1500", "--user-data-dir=" + profile.toAbsolutePath());
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void showsTheLeasedWorkerIdAndASegmentTagAndRefreshesItself() throws Exception {
        String tag = "page-" + UUID.randomUUID().toString().substring(0, 8);
        SampleHttp.Response first = SampleHttp.get(port, "/ids/segment/" + tag + "?count=5");
        assertThat(first.ids()).containsExactly(1, 2, 3, 4, 5);
        int workerId = worker.currentLease().workerId();

        browser.get("http://127.0.0.1:" + port + "/status");
        assertThat(browser.getTitle()).isEqualTo("idworker status");
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(texts("[data-kind='worker'] td[data-fact='workerId']")).contains(Integer.toString(workerId));
            assertThat(texts("[data-kind='worker'] td[data-fact='namespace']")).contains(worker.namespace());
            assertThat(texts("[data-kind='segment'][data-name='" + tag + "'] .verdict")).singleElement()
                    .asString().matches("tag " + tag + ": [0-9,]+ numbers left in memory .*");
        });
        assertThat(texts("[data-kind='worker'] .verdict")).singleElement().asString()
                .startsWith("worker id " + workerId + " leased, high-water in ");
        assertThat(browser.findElement(By.id("health")).getText()).isEqualTo("UP");
        assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();

        // the page reads again by itself: the time of the last read moves on without a reload
        String updated = browser.findElement(By.id("updated")).getText();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !browser.findElement(By.id("updated")).getText().equals(updated));
    }

    @Test
    void plotsMoveUnderLoadAndADrainedPoolIsWarned() throws Exception {
        RequestSigner demo = new RequestSigner("demo", SECRET);
        String tag = "load-" + UUID.randomUUID().toString().substring(0, 8);
        // one signed take so this node has seen the pool (its level is -1 before), one serial so its stock is known
        assertThat(SignedHttp.signedGet(port, demo, POOL_PATH, "count=10").ids()).hasSize(10);
        assertThat(SampleHttp.get(port, "/serials/order").status()).isEqualTo(200);
        assertThat(SampleHttp.get(port, "/ids/segment/" + tag + "?count=10").status()).isEqualTo(200);

        browser.get("http://127.0.0.1:" + port + "/status");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(texts("[data-kind='pool'][data-name='user'] .verdict")).singleElement().asString()
                    .startsWith("pool user: 100 % full (1,990 of 2,000 IDs)");
            assertThat(pointsOf("snowflake")).isGreaterThanOrEqualTo(3);
        });
        assertThat(warningsAbout("pool user")).isEmpty();
        assertThat(attribute("[data-kind='pool'][data-name='user']", "class"))
                .isEqualTo("card ok");
        screenshot("status-at-rest.png");

        String before = pathOf("snowflake");
        int pointsBefore = pointsOf("snowflake");
        ExecutorService callers = Executors.newFixedThreadPool(LOAD_THREADS + 1);
        long deadline = System.nanoTime() + LOAD_TIME.toNanos();
        AtomicLong calls = new AtomicLong();
        List<Future<?>> load = new ArrayList<>();
        try {
            for (int t = 0; t < LOAD_THREADS; t++) {
                String path = t % 2 == 0 ? "/ids/next?count=100" : "/ids/segment/" + tag + "?count=20";
                load.add(callers.submit(() -> {
                    for (int i = 0; i < LOAD_CALLS && System.nanoTime() < deadline; i++) {
                        assertThat(SampleHttp.get(port, path).status()).isEqualTo(200);
                        calls.incrementAndGet();
                        Thread.sleep(5);
                    }
                    return null;
                }));
            }
            // drain the pool from 1,990 to 790, below its threshold of 1,000, over about 3 s: 12 signed takes of 100
            load.add(callers.submit(() -> {
                for (int i = 0; i < 12 && System.nanoTime() < deadline; i++) {
                    assertThat(SignedHttp.signedGet(port, demo, POOL_PATH, "count=100").ids()).hasSize(100);
                    Thread.sleep(250);
                }
                return null;
            }));

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(Double.parseDouble(attribute("#rate-total", "data-rate")))
                        .isPositive();
                assertThat(rateOf("snowflake")).isPositive();
                assertThat(rateOf("segment")).isPositive();
            });
            assertThat(pathOf("snowflake")).isNotEqualTo(before);
            assertThat(pointsOf("snowflake")).isGreaterThan(pointsBefore);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(warningsAbout("pool user")).anySatisfy(w ->
                        assertThat(w).contains("pool user: below its refill threshold: 790 IDs left"));
                assertThat(attribute("[data-kind='pool'][data-name='user']", "class")).isEqualTo("card warn");
                assertThat(texts("#overall").get(0)).contains("warning");
            });
            screenshot("status-under-load.png");
            for (Future<?> f : load) {
                f.get(LOAD_TIME.toSeconds() + 30, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
            assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(calls.get()).isPositive();
    }

    @Test
    void identifiersAsStringsSurviveJsonParseInTheBrowser() {
        browser.get("http://127.0.0.1:" + port + "/status");
        Object answer = ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch('/ids/next?count=3&as=string').then(r => r.text()).then(body => {
                  const ids = JSON.parse(body);
                  const digits = body.match(/[0-9]+/g);
                  done([typeof ids[0], ids.every((id, i) => id === digits[i]),
                        ids.every(id => BigInt(id) > 0n), ids.join(',')]);
                }).catch(e => done(['error', String(e)]));
                """);
        List<?> result = (List<?>) answer;
        assertThat(result.get(0)).as("%s", result).isEqualTo("string");
        assertThat(result.get(1)).as("every digit survives JSON.parse: %s", result).isEqualTo(true);
        assertThat(result.get(2)).isEqualTo(true);
        for (String id : ((String) result.get(3)).split(",")) {
            assertThat(worker.decode(Long.parseLong(id)).workerId()).isEqualTo(worker.currentLease().workerId());
        }
    }

    // read in one script call: the page rewrites its cards every read, so an element found by one WebDriver call may
    // be gone by the next (a stale element reference)
    private List<String> texts(String css) {
        List<?> found = (List<?>) ((JavascriptExecutor) browser).executeScript(
                "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)", css);
        return found.stream().map(String::valueOf).toList();
    }

    private String attribute(String css, String name) {
        Object value = ((JavascriptExecutor) browser).executeScript(
                "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
                css, name);
        assertThat(value).as("%s of %s", name, css).isNotNull();
        return value.toString();
    }

    private List<String> warningsAbout(String subject) {
        return texts("#warnings li[data-subject='" + subject + "']");
    }

    private String pathOf(String mode) {
        return attribute("#plot-rates path[data-series='" + mode + "']", "d");
    }

    private int pointsOf(String mode) {
        return Integer.parseInt(attribute("#plot-rates path[data-series='" + mode + "']", "data-points"));
    }

    private double rateOf(String mode) {
        return Double.parseDouble(attribute("#rate-legend [data-mode='" + mode + "']", "data-rate"));
    }

    private void screenshot(String name) throws Exception {
        Path shot = Path.of("target", name);
        Files.createDirectories(shot.getParent());
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(shot)).isGreaterThan(10_000);
    }
}
