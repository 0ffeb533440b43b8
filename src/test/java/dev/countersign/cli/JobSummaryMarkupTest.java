package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job summary of {@code check}, end to end through the Action entry, when a pull request's
 * author chooses file and object names that are Markdown and HTML: GitHub renders the summary with
 * a sanitiser that keeps headings, images and links, so the names must reach it inert.
 */
class JobSummaryMarkupTest {

  /** A file name that, rendered, would be a "passed" heading, a tracking image and a link. */
  static final String HOSTILE_FILE =
      "unsigned/<h1>All checks passed<img src=\"https:attacker.example?t.png\">"
          + "[Approve here](https:evil.example).yaml";

  /** An object name that, rendered, would be a link. */
  static final String HOSTILE_NAME = "<a href=\"https://evil.example\">click</a>";

  @TempDir Path tmp;
  private PullRequestGate gate;

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
  }

  @Test
  void check_hostileFileAndObjectNames_reachTheSummaryInert() throws Exception {
    String manifest =
        GateRepository.ALLOW_ALL_INGRESS.replace(
            "name: allow-all", "name: '" + HOSTILE_NAME.replace("'", "''") + "'");
    Path ws = gate.pullRequest(Map.of(HOSTILE_FILE, manifest), Set.of(), 1);

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    String summary = Files.readString(tmp.resolve("summary"));
    assertThat(summary)
        .as(summary)
        .contains("| error | governance | unsigned/&lt;h1&gt;All checks passed&lt;img")
        .contains("click&lt;/a&gt;")
        .doesNotContain("<h1")
        .doesNotContain("<img")
        .doesNotContain("<a ")
        .doesNotContain("](");
  }

  @Test
  void control_ordinaryNames_keepTheirRow() throws Exception {
    Path ws =
        gate.pullRequest(
            Map.of("unsigned/net/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS), Set.of(), 1);

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(Files.readString(tmp.resolve("summary")))
        .contains(
            "| error | governance | unsigned/net/allow-all.yaml | 1 | NetworkPolicy/shop/allow-all"
                + " | a NetworkPolicy must not allow ingress from everywhere");
  }
}
