package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.Env;
import dev.countersign.support.problems.InternalProblem;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ActionsReporterTest {

  @TempDir Path tmp;
  final StringWriter log = new StringWriter();
  final StringWriter err = new StringWriter();

  ActionsReporter reporter() {
    return new ActionsReporter(
        new PrintWriter(log),
        Optional.of(tmp.resolve("output")),
        Optional.of(tmp.resolve("summary")),
        () -> "fixed-uuid");
  }

  @Test
  void mask_multiLineSecret_masksEveryLineFirst() {
    ActionsReporter r = reporter();

    r.mask("line-one\nline-two");
    r.info("after");

    assertThat(log.toString()).isEqualTo("::add-mask::line-one\n::add-mask::line-two\nafter\n");
  }

  @Test
  void error_withLocation_escapesDataAndPropertiesLikeTheToolkit() {
    reporter()
        .error(
            "50% done\r\nnext",
            Annotation.at("unsigned/a,b:c.yaml", 7).withTitle("Invalid: manifest"));

    assertThat(log.toString())
        .isEqualTo(
            "::error file=unsigned/a%2Cb%3Ac.yaml,line=7,title=Invalid%3A manifest::50%25"
                + " done%0D%0Anext\n");
  }

  @Test
  void warningNoticeGroup_writeTheirCommands() {
    ActionsReporter r = reporter();

    r.group("Signing 2 manifests");
    r.warning("careful");
    r.notice("fyi", Annotation.at("signed/a.yaml"));
    r.endGroup();

    assertThat(log.toString())
        .isEqualTo(
            "::group::Signing 2 manifests\n"
                + "::warning::careful\n"
                + "::notice file=signed/a.yaml::fyi\n"
                + "::endgroup::\n");
  }

  @Test
  void info_lineThatLooksLikeACommand_isDefused() {
    reporter().info("::add-mask::not-really\n\nok\n");

    // The runner strips leading blanks before it looks for "::", so a space would not help.
    assertThat(log.toString()).isEqualTo("%3A:add-mask::not-really\n\nok\n");
  }

  @Test
  void output_singleAndMultiLine_useNameValueAndHeredoc() throws Exception {
    ActionsReporter r = reporter();

    r.output("result", "pushed");
    r.output("signed", "signed/a.yaml\nsigned/b.yaml");

    assertThat(Files.readString(tmp.resolve("output")))
        .isEqualTo(
            "result=pushed\n"
                + "signed<<ghadelimiter_fixed-uuid\n"
                + "signed/a.yaml\n"
                + "signed/b.yaml\n"
                + "ghadelimiter_fixed-uuid\n");
  }

  @Test
  void output_valueContainingTheDelimiter_isRefused() {
    assertThatThrownBy(() -> reporter().output("x", "a\nghadelimiter_fixed-uuid\nb"))
        .isInstanceOf(InternalProblem.class)
        .hasMessageContaining("contains the delimiter ghadelimiter_fixed-uuid");
    assertThat(tmp.resolve("output")).doesNotExist();
  }

  @Test
  void summary_tableEscapesPipesAndNewlines() throws Exception {
    ActionsReporter r = reporter();

    r.summary("### countersign\n");
    r.summary(
        ActionsReporter.markdownTable(
            List.of("file", "result"), List.of(List.of("signed/a|b.yaml", "signed\nnew"))));

    assertThat(Files.readString(tmp.resolve("summary")))
        .isEqualTo(
            "### countersign\n"
                + "| file | result |\n"
                + "| --- | --- |\n"
                + "| signed/a\\|b.yaml | signed<br>new |\n");
  }

  @Test
  void markdownTable_cellsHoldingMarkup_areInert() {
    String table =
        ActionsReporter.markdownTable(
            List.of("manifest"),
            List.of(
                List.of("signed/<h1>ok</h1>[x](https://evil.example)![i](t.png).yaml"),
                List.of("signed/a\\|b.yaml")));

    assertThat(table)
        .isEqualTo(
            "| manifest |\n"
                + "| --- |\n"
                + "| signed/&lt;h1&gt;ok&lt;/h1&gt;\\[x\\]\\(https\\://evil.example\\)"
                + "\\!\\[i\\]\\(t.png\\).yaml |\n"
                + "| signed/a\\\\\\|b.yaml |\n");
  }

  @Test
  void forEnvironment_outsideActions_printsPlainLinesAndDropsOutputs() {
    Reporter r =
        Reporter.forEnvironment(
            Env.of(Map.of("GITHUB_OUTPUT", tmp.resolve("o").toString())),
            new PrintWriter(log),
            new PrintWriter(err));

    r.mask("secret");
    r.group("Signing");
    r.error("bad manifest", Annotation.at("unsigned/a.yaml", 3));
    r.output("result", "noop");

    assertThat(r).isInstanceOf(ConsoleReporter.class);
    assertThat(log.toString()).isEqualTo("== Signing\n");
    assertThat(err.toString()).isEqualTo("error: unsigned/a.yaml:3: bad manifest\n");
    assertThat(tmp.resolve("o")).doesNotExist();
  }

  @Test
  void forEnvironment_inActions_writesToGithubOutput() throws Exception {
    Env env =
        Env.of(Map.of("GITHUB_ACTIONS", "true", "GITHUB_OUTPUT", tmp.resolve("o").toString()));
    Reporter r = Reporter.forEnvironment(env, new PrintWriter(log), new PrintWriter(err));

    r.output("result", "noop");

    assertThat(r).isInstanceOf(ActionsReporter.class);
    assertThat(Files.readString(tmp.resolve("o"))).isEqualTo("result=noop\n");
  }
}
