package io.github.idworker.server;

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
import org.openqa.selenium.WebElement;
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
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operators' status page in a real browser: Debian's headless Chromium driven through
 * {@code /usr/bin/chromedriver} (packages {@code chromium} and {@code chromium-driver}, installed by
 * {@code .ci/run}; nothing is downloaded). The page must show the worker id this instance leased and a segment tag
 * it serves, read from the Actuator endpoint by the page's own script, and refresh itself; a screenshot is left at
 * {@code target/status-page.png}. Also checks, in the browser's own JavaScript, that {@code ?as=string} identifiers
 * survive {@code JSON.parse} digit for digit.
 */
@Tag("real-services")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.data.redis.port=0", "idworker.namespace=t-${random.uuid}",
        "idworker.lease.ttl=1s", "idworker.lease.max-skew=100ms", "idworker.lease.loss-guard=1100ms"})
class StatusPageBrowserTest {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

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
                "--window-size=1280,1100", "--user-data-dir=" + profile.toAbsolutePath());
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
            assertThat(cells("workers", "workerId")).contains(Integer.toString(workerId));
            assertThat(cells("workers", "namespace")).contains(worker.namespace());
            assertThat(cells("segments", "tag")).contains(tag);
        });
        assertThat(browser.findElement(By.id("health")).getText()).isEqualTo("UP");
        assertThat(browser.findElement(By.id("error")).isDisplayed()).isFalse();

        // the page reads again by itself: the time of the last read moves on without a reload
        String updated = browser.findElement(By.id("updated")).getText();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !browser.findElement(By.id("updated")).getText().equals(updated));

        Path shot = Path.of("target", "status-page.png");
        Files.createDirectories(shot.getParent());
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(shot)).isGreaterThan(10_000);
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

    private List<String> cells(String section, String field) {
        return browser.findElements(By.cssSelector("#" + section + " td[data-field='" + field + "']")).stream()
                .map(WebElement::getText).toList();
    }
}
