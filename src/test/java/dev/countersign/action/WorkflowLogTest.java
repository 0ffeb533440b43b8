package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.testing.ActionsRunnerModel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one log writer: whatever untrusted text goes through it, the runner (modelled on
 * actions/runner) executes nothing but the commands countersign issues on purpose.
 */
class WorkflowLogTest {

  private final StringWriter raw = new StringWriter();
  private final WorkflowLog log = WorkflowLog.over(new PrintWriter(raw));

  /** Attacker text: every way we know of to make a runner read a line as a command. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "::warning::PWNED",
        "   ::stop-commands::PWNED",
        "\t::add-mask::PWNED",
        "\u00a0\u2003::error::PWNED", // no-break and em spaces: .NET trims them
        "\u200b::error::PWNED", // zero-width space: ignored by a culture-sensitive StartsWith
        ":\u00ad:error::PWNED", // soft hyphen between the colons
        "file ##[error]PWNED",
        "file #\u200b#[error]PWNED",
        "##[stop-commands]PWNED",
        "name\n::warning::PWNED",
        "name\r::warning::PWNED",
        "name\r\n::warning::PWNED",
        "name\u0085::warning::PWNED", // NEL: not a runner line break, shown escaped anyway
        "name\u2028::warning::PWNED",
        "a\n\n  ::set-output name=x::PWNED\n##[add-mask]PWNED",
      })
  void untrustedText_isNeverExecuted(String attack) {
    log.println(attack);
    log.print("trailing " + attack); // no terminator: held back, then written by finish()
    log.finish();

    ActionsRunnerModel runner = new ActionsRunnerModel().feed(raw.toString());
    assertThat(runner.executed()).as(raw.toString()).isEmpty();
    assertThat(raw.toString().lines()).noneMatch(WorkflowCommands::looksLikeCommand);
    assertThat(raw.toString()).contains("PWNED"); // shown, not dropped
  }

  @Test
  void intendedCommands_areExecuted_withTheirDataAndPropertiesExact() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("file", "unsigned/a,b:c %.yaml");
    properties.put("line", "7");
    properties.put("title", "invalid manifest");
    log.println("before");
    log.command("error", properties, "50% done\r\nnext");
    log.command("add-mask", Map.of(), "s3cr3t");
    log.println("the s3cr3t is hidden");
    log.finish();

    assertThat(raw.toString())
        .isEqualTo(
            "before\n"
                + "::error file=unsigned/a%2Cb%3Ac %25.yaml,line=7,title=invalid manifest::50%25"
                + " done%0D%0Anext\n"
                + "::add-mask::s3cr3t\n"
                + "the s3cr3t is hidden\n");
    ActionsRunnerModel runner = new ActionsRunnerModel().feed(raw.toString());
    assertThat(runner.executed())
        .extracting(ActionsRunnerModel.Command::name)
        .containsExactly("error", "add-mask");
    assertThat(runner.executed().get(0).properties()).isEqualTo(properties);
    assertThat(runner.executed().get(0).data()).isEqualTo("50% done\r\nnext");
    assertThat(runner.displayed())
        .contains("the *** is hidden")
        .noneMatch(l -> l.contains("s3cr3t"));
  }

  @Test
  void annotationText_fromAttackerNames_isEscapedAndCannotEndTheCommandEarly() {
    String name = "unsigned/x\n::stop-commands::PWNED\n##[error]y.yaml";
    log.command("error", Map.of("file", name), "bad: " + name);
    log.command("add-mask", Map.of(), "token-after");
    log.println("token-after");
    log.finish();

    ActionsRunnerModel runner = new ActionsRunnerModel().feed(raw.toString());
    assertThat(runner.executed())
        .extracting(ActionsRunnerModel.Command::name)
        .containsExactly("error", "add-mask");
    assertThat(runner.commandsStopped()).isFalse();
    assertThat(runner.displayed()).noneMatch(l -> l.contains("token-after"));
    assertThat(raw.toString().lines().count()).isEqualTo(3);
  }

  @Test
  void addMask_keepsTheSecretExact_evenWhenItLooksLikeACommand() {
    log.command("add-mask", Map.of(), "ab##[cd");
    log.finish();

    assertThat(raw.toString()).isEqualTo("::add-mask::ab##[cd\n");
    assertThat(new ActionsRunnerModel().feed(raw.toString()).executed().get(0).data())
        .isEqualTo("ab##[cd");
  }

  @Test
  void partialLine_isWrittenBeforeTheNextCommand_soOrderIsKept() {
    log.print("progress ");
    log.command("group", Map.of(), "Signing");
    log.println("done");
    log.finish();

    assertThat(raw.toString()).isEqualTo("progress \n::group::Signing\ndone\n");
  }

  @Test
  void overAWorkflowLog_returnsTheSameWriter() {
    assertThat(WorkflowLog.over(log)).isSameAs(log);
  }

  @Test
  void veryLongLineWithoutBreak_isWrittenInBoundedPieces_stillNeutralized() {
    String chunk = "x".repeat(WorkflowLog.MAX_LINE - 1) + "::warning::PWNED";
    log.print(chunk); // the cut falls right before "::"
    log.finish();

    assertThat(new ActionsRunnerModel().feed(raw.toString()).executed()).isEmpty();
  }

  @Test
  void linesFromManyThreads_neverMergeIntoACommand() throws Exception {
    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String text = t % 2 == 0 ? "#" : "#[error]PWNED:";
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                for (int i = 0; i < 500; i++) {
                  log.print(text);
                  log.println();
                }
              });
      workers.add(worker);
      worker.start();
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    log.finish();

    assertThat(new ActionsRunnerModel().feed(raw.toString()).executed()).isEmpty();
    assertThat(raw.toString().lines().count()).isEqualTo(threads * 500L);
  }

  @Test
  void logSafeJson_passesThroughTheWriterUnchanged_andMeansTheSame() throws Exception {
    Map<String, Object> value =
        Map.of(
            "file", "unsigned/##[stop-commands]x\u200b.yaml",
            "message", "::warning::PWNED\n##[error]PWNED \uD83D\uDE00",
            "list", List.of("[a]", "b"));
    String json = dev.countersign.support.LogSafeJson.mapper().writeValueAsString(value);
    log.println(json);
    log.finish();

    assertThat(raw.toString()).isEqualTo(json + "\n");
    assertThat(new ActionsRunnerModel().feed(raw.toString()).executed()).isEmpty();
    assertThat(
            new com.fasterxml.jackson.databind.ObjectMapper().readValue(raw.toString(), Map.class))
        .isEqualTo(value);
  }

  @Test
  void neutralize_leavesOrdinaryTextAlone() {
    assertThat(WorkflowCommands.neutralize("signed unsigned/app.yaml (1/3): a::b, c#[d]"))
        .isEqualTo("signed unsigned/app.yaml (1/3): a::b, c#[d]");
    assertThat(WorkflowCommands.neutralize("  ::x")).isEqualTo("  %3A:x");
    assertThat(WorkflowCommands.neutralize("a##[b")).isEqualTo("a##%5Bb");
    assertThat(WorkflowCommands.neutralize("zero\u200bwidth")).isEqualTo("zero\\u200Bwidth");
    assertThat(WorkflowCommands.lines("a\r\nb\rc\nd\n")).containsExactly("a", "b", "c", "d");
  }

  /**
   * Unicode's default-ignorable code points that are not controls or format characters (so
   * neutralize names them one by one): each end of each range, and one inside the long ones. A
   * reviewer sees nothing there, so the log shows each as an escape.
   */
  @ParameterizedTest
  @ValueSource(
      ints = {
        0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180D, 0x180F, 0x3164, 0xFE00, 0xFE08,
        0xFE0F, 0xFFA0, 0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A, 0xE0000, 0xE0100, 0xE0FFF
      })
  void defaultIgnorableCodePoint_isShownEscaped_andCannotHideACommand(int codePoint) {
    String hidden = new String(Character.toChars(codePoint));
    String escape =
        String.format(java.util.Locale.ROOT, codePoint > 0xFFFF ? "\\U%08X" : "\\u%04X", codePoint);

    assertThat(WorkflowCommands.neutralize("a" + hidden + "b")).isEqualTo("a" + escape + "b");
    assertThat(WorkflowCommands.looksLikeCommand(hidden + "::error::PWNED")).isTrue();
    assertThat(WorkflowCommands.looksLikeCommand(":" + hidden + ":error::PWNED")).isTrue();
  }

  /** The visible characters right beside each of those ranges are ordinary text, shown as is. */
  @ParameterizedTest
  @ValueSource(
      ints = {
        0x034E, 0x0350, 0x115E, 0x1161, 0x17B3, 0x17B6, 0x180A, 0x1810, 0x3163, 0x3165, 0xFDFD,
        0xFE10, 0xFF9F, 0xFFA1, 0x1BC9F, 0x1D172, 0x1D17B, '\t'
      })
  void visibleNeighbourOfAnIgnorableRange_isShownAsItIs(int codePoint) {
    String visible = "a" + new String(Character.toChars(codePoint)) + "b";

    assertThat(WorkflowCommands.neutralize(visible)).isEqualTo(visible);
    assertThat(WorkflowCommands.looksLikeCommand(visible)).isFalse();
  }

  /** The last-resort check sees a command behind any leading space .NET trims, not only ASCII. */
  @Test
  void looksLikeCommand_seesACommandBehindAnyLeadingSpace_andNotInsideText() {
    assertThat(WorkflowCommands.looksLikeCommand("::warning::x")).isTrue();
    assertThat(WorkflowCommands.looksLikeCommand("\u00a0::warning::x")).isTrue();
    assertThat(WorkflowCommands.looksLikeCommand("\u2003\t ::warning::x")).isTrue();
    assertThat(WorkflowCommands.looksLikeCommand("\u200b\u00a0::warning::x")).isTrue();
    assertThat(WorkflowCommands.looksLikeCommand("x ##[error]y")).isTrue();
    assertThat(WorkflowCommands.looksLikeCommand("x ::warning::y")).isFalse();
    assertThat(WorkflowCommands.looksLikeCommand("\u00a0x::warning::y")).isFalse();
  }

  @Test
  void lines_aTrailingCarriageReturnEndsTheLastLine_withoutStartingAnother() {
    assertThat(WorkflowCommands.lines("a\r")).containsExactly("a");
    assertThat(WorkflowCommands.lines("a\r\r\nb")).containsExactly("a", "", "b");
    assertThat(WorkflowCommands.lines("")).containsExactly("");
  }

  /**
   * finish() writes the held-back last line and flushes, through a raw writer that buffers as the
   * standard output does: nothing printed last is lost when the process ends.
   */
  @Test
  void finish_writesTheHeldBackLastLine_neutralized_andFlushesIt() {
    StringWriter target = new StringWriter();
    WorkflowLog buffered =
        WorkflowLog.over(new PrintWriter(new java.io.BufferedWriter(target, 8192)));
    buffered.println("first");
    buffered.print("::warning::last words");

    buffered.finish();

    assertThat(target.toString()).isEqualTo("first\n%3A:warning::last words\n");
  }
}
