/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.DropwizardTestSupport;
import io.firn.server.FirnServerApplication;
import io.firn.server.FirnServerConfiguration;
import io.firn.testkit.CdcTableSpec;
import io.firn.testkit.GeneratedTable;
import io.firn.testkit.Http;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator's console in a real browser: Debian's headless Chromium, driven through its
 * chromedriver over WebDriver, against a running server (H2 state store, in-process worker) that
 * optimizes three generated streaming tables. Every page renders with the server's data, the table
 * page shows the process the server just ran and its tasks, a pause without the admin token is
 * refused and changes nothing, one with it pauses the table (and resume resumes it), and the
 * browser logs no error but the refused request's 401. Screenshots go to {@code
 * target/console-screenshots/} (and to {@code firn.test.screenshots} when set, e.g. {@code
 * ../docs/images}).
 *
 * <p>Without Chromium ({@code /usr/bin/chromium}, {@code /usr/bin/chromedriver}, or {@code
 * FIRN_CHROMIUM} and {@code FIRN_CHROMEDRIVER}) the test fails under {@code CI=true} and is
 * skipped, with the reason, elsewhere: {@code .ci/run} installs both.
 */
class ConsoleBrowserIT {
  private static final String[] TABLES = {"orders", "clicks", "users"};

  @Test
  void everyPageRendersRealDataAndActionsNeedTheAdminToken() throws Exception {
    Path chromium = Path.of(env("FIRN_CHROMIUM", "/usr/bin/chromium"));
    Path chromedriver = Path.of(env("FIRN_CHROMEDRIVER", "/usr/bin/chromedriver"));
    String missing =
        !Files.isExecutable(chromium)
            ? chromium.toString()
            : !Files.isExecutable(chromedriver) ? chromedriver.toString() : null;
    if (missing != null) {
      String message =
          missing
              + " is missing: install Debian's chromium and chromium-driver (.ci/run does) or set"
              + " FIRN_CHROMIUM and FIRN_CHROMEDRIVER";
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(message);
      }
      Assumptions.abort(message);
    }

    try (ServerFixture fixture = new ServerFixture()) {
      List<GeneratedTable> generated = new ArrayList<>();
      for (int i = 0; i < TABLES.length; i++) {
        CdcTableSpec spec =
            new CdcTableSpec(1_200, 8, 0.1, 0.02, 0.02, i == 0 ? 4 : 0, 40L + i, false, false);
        generated.add(fixture.generate("shop", TABLES[i], spec));
      }
      DropwizardTestSupport<FirnServerConfiguration> server =
          new DropwizardTestSupport<>(
              FirnServerApplication.class,
              fixture
                  .config(
                      "jdbc:h2:file:" + fixture.dir.resolve("state/firn"),
                      null,
                      """
                          localWorkerThreads: 2
                          maxConcurrentProcesses: 3
                          lease: 20s
                          heartbeatInterval: 1s
                          retryBackoff: 1s
                      """)
                  .toString());
      server.before();
      // A writer keeps upserting into orders while the server optimizes it: up to 24 commits, 0.3 s
      // apart, until the browser is done.
      LiveWriter writer = new LiveWriter(generated.get(0), 40, 4, Duration.ofMillis(300), 24);
      WebDriver browser = null;
      try {
        String base = "http://localhost:" + server.getLocalPort();
        String api = base + "/api/v1";
        // The server optimizes every table on its own, orders while the writer writes.
        await()
            .atMost(60, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(300))
            .until(
                () ->
                    Http.get(api + "/tables").list().stream()
                            .allMatch(t -> t.get("lastProcessId") != null)
                        && succeeded(api, "orders") >= 2);

        browser = chromium(chromium, chromedriver, fixture.dir.resolve("chromium-profile"));
        // The console re-renders every 5 s: an element found just before may be replaced.
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.ignoring(StaleElementReferenceException.class);
        List<Path> shots = new ArrayList<>();

        // Overview: the tables, groups, catalogs and no alerts.
        browser.get(base + "/");
        wait.until(d -> text(d, "#card-tables .v").equals("3"));
        assertThat(text(browser, "main")).contains("Tables by state", "Groups", "Catalogs", "lake");
        wait.until(d -> !d.findElements(By.id("alerts")).isEmpty());
        assertThat(browser.findElements(By.cssSelector(".alert.critical"))).isEmpty();
        shots.add(screenshot(browser, "console-overview", 1250));

        // Tables: every table with its figures; the filter and the sort work.
        browser.get(base + "/#/tables");
        wait.until(d -> d.findElements(By.cssSelector("#tables tbody tr")).size() == 3);
        Map<String, Object> clicks = table(api, "clicks");
        @SuppressWarnings("unchecked")
        Map<String, Object> summary = (Map<String, Object>) clicks.get("summary");
        assertThat(text(browser, "tr[data-table='lake.shop.clicks']"))
            .contains(
                "lake.shop.clicks",
                "idle",
                "KiB",
                String.format(Locale.ROOT, "%,d", ((Number) summary.get("records")).longValue()))
            .containsPattern("ago|just now");
        assertThat(text(browser, "tr[data-table='lake.shop.orders']"))
            .containsPattern("idle|pending|planning|optimizing|committing");
        shots.add(screenshot(browser, "console-tables", 700));
        click(wait, By.cssSelector("th[data-sort='name']"));
        wait.until(d -> firstTable(d).equals("lake.shop.clicks"));
        click(wait, By.cssSelector("th[data-sort='name']"));
        wait.until(d -> firstTable(d).equals("lake.shop.users"));
        wait.until(
            d -> {
              d.findElement(By.id("filter")).sendKeys("ord");
              return true;
            });
        wait.until(d -> d.findElements(By.cssSelector("#tables tbody tr")).size() == 1);
        assertThat(firstTable(browser)).isEqualTo("lake.shop.orders");

        // The table page: the newest process that has tasks (the newest may still be planning,
        // or may have found nothing to do), its tasks, the plan, the timeline.
        String processId = newestProcessWithTasks(api, "orders");
        click(wait, By.cssSelector("#tables tbody tr"));
        wait.until(
            d -> !d.findElements(By.cssSelector("tr[data-process='" + processId + "']")).isEmpty());
        assertThat(text(browser, "#table-name")).isEqualTo("lake.shop.orders");
        assertThat(text(browser, "tr[data-process='" + processId + "']"))
            .containsPattern("succeeded|running|partial|failed|cancelled");
        assertThat(browser.findElements(By.cssSelector("tr.snapshot.firn"))).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("tr.snapshot.writer"))).isNotEmpty();
        assertThat(text(browser, "main")).contains("Partitions (4", "bucket", "Effective policy");
        click(wait, By.cssSelector("tr[data-process='" + processId + "']"));
        wait.until(d -> !d.findElements(By.cssSelector("tr.task")).isEmpty());
        assertThat(text(browser, "tr.task")).containsPattern("committed|leased|pending|succeeded");
        click(wait, By.id("plan-run"));
        wait.until(d -> !d.findElements(By.id("plan")).isEmpty());
        shots.add(screenshot(browser, "console-table", 2600));
        assertThat(severe(browser)).as("browser errors while rendering").isEmpty();

        // An action without the admin token is refused and changes nothing.
        confirm(wait, "action-pause");
        wait.until(d -> text(d, "#action-result").contains("refused (401)"));
        assertThat(table(api, "orders")).containsEntry("paused", false);
        List<String> refused = severe(browser);
        assertThat(refused)
            .as("the only browser errors are the refused request's")
            .isNotEmpty()
            .allSatisfy(e -> assertThat(e).contains("/pause").contains("401"));

        // With the token it pauses the table, and the page shows it.
        wait.until(
            d -> {
              d.findElement(By.id("token")).sendKeys(ServerFixture.ADMIN_TOKEN);
              return true;
            });
        click(wait, By.id("token-set"));
        wait.until(d -> text(d, "#mode").equals("admin"));
        confirm(wait, "action-pause");
        wait.until(d -> text(d, "#action-result").contains("paused: no new process starts"));
        assertThat(table(api, "orders")).containsEntry("paused", true);
        wait.until(d -> !d.findElements(By.id("table-paused")).isEmpty());
        confirm(wait, "action-resume");
        wait.until(d -> text(d, "#action-result").contains("resume: resumed"));
        assertThat(table(api, "orders")).containsEntry("paused", false);

        // Workers and groups; policies.
        browser.get(base + "/#/workers");
        wait.until(d -> !d.findElements(By.cssSelector("tr.worker")).isEmpty());
        assertThat(text(browser, "tr.worker")).contains("local", "*");
        shots.add(screenshot(browser, "console-workers", 700));
        browser.get(base + "/#/policies");
        wait.until(d -> !d.findElements(By.id("policy")).isEmpty());
        assertThat(text(browser, "#policy")).contains("built-in default policy");

        // Hostile addresses get a page that says so, not a broken one.
        browser.get(base + "/#/table/lake/shop/%3Cscript%3Enope");
        wait.until(d -> !d.findElements(By.id("page-error")).isEmpty());
        assertThat(text(browser, "#page-error")).contains("404", "no watched table named");
        assertThat(severe(browser)).allSatisfy(e -> assertThat(e).contains("404").contains("nope"));

        assertThat(shots).allSatisfy(p -> assertThat(Files.size(p)).isGreaterThan(10_000));
        assertThat(writer.stop()).isNull();
      } finally {
        writer.stop();
        if (browser != null) {
          browser.quit();
        }
        server.after();
      }
    }
  }

  private static WebDriver chromium(Path chromium, Path chromedriver, Path profile) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--user-data-dir=" + profile,
        "--window-size=1440,1000");
    options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile()).build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
    return driver;
  }

  /** Clicks an action button and confirms its dialog. */
  private static void confirm(WebDriverWait wait, String button) {
    click(wait, By.id(button));
    wait.until(d -> d.findElement(By.id("confirm-yes")).isDisplayed());
    click(wait, By.id("confirm-yes"));
  }

  /** Clicks what {@code by} finds, again if a re-render replaced it in between. */
  private static void click(WebDriverWait wait, By by) {
    wait.until(
        d -> {
          d.findElement(by).click();
          return true;
        });
  }

  /** The browser log's errors since the last call. */
  private static List<String> severe(WebDriver browser) {
    List<String> errors = new ArrayList<>();
    for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
      if (entry.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
        errors.add(entry.getLevel() + " " + entry.getMessage());
      }
    }
    return errors;
  }

  private static Path screenshot(WebDriver browser, String name, int height) throws IOException {
    browser.manage().window().setSize(new Dimension(1440, height));
    ((ChromeDriver) browser).executeScript("window.scrollTo(0, 0)");
    byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
    Path file = Path.of("target/console-screenshots", name + ".png");
    Files.createDirectories(file.getParent());
    Files.write(file, png);
    String copy = System.getProperty("firn.test.screenshots");
    if (copy != null && !copy.isBlank()) {
      Files.createDirectories(Path.of(copy));
      Files.write(Path.of(copy, name + ".png"), png);
    }
    browser.manage().window().setSize(new Dimension(1440, 1000));
    return file;
  }

  private static long succeeded(String api, String table) {
    return Http.get(api + "/processes?table=lake.shop." + table).list().stream()
        .filter(p -> p.get("status").equals("succeeded"))
        .count();
  }

  /** Among the ten processes the table page shows, the newest that has tasks. */
  private static String newestProcessWithTasks(String api, String table) {
    for (Map<String, Object> process :
        Http.get(api + "/processes?table=lake.shop." + table + "&limit=10").list()) {
      String id = (String) process.get("processId");
      if (!((List<?>) Http.get(api + "/processes/" + id).map().get("tasks")).isEmpty()) {
        return id;
      }
    }
    throw new AssertionError("none of the ten newest processes of " + table + " has tasks");
  }

  private static Map<String, Object> table(String api, String name) {
    @SuppressWarnings("unchecked")
    Map<String, Object> state =
        (Map<String, Object>) Http.get(api + "/tables/lake/shop/" + name).map().get("table");
    return state;
  }

  /** The first table row's name; read again when a refresh replaced the row meanwhile. */
  private static String firstTable(WebDriver d) {
    return fresh(
        () ->
            d.findElements(By.cssSelector("#tables tbody tr"))
                .get(0)
                .getDomAttribute("data-table"));
  }

  private static String text(WebDriver d, String css) {
    return fresh(
        () -> {
          List<WebElement> found = d.findElements(By.cssSelector(css));
          return found.isEmpty() ? "" : found.get(0).getText();
        });
  }

  /**
   * Reads the page again when the console's 5-second refresh re-rendered an element between finding
   * it and reading it (a stale element), up to five times.
   */
  private static String fresh(java.util.function.Supplier<String> read) {
    for (int attempt = 0; ; attempt++) {
      try {
        return read.get();
      } catch (StaleElementReferenceException e) {
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
