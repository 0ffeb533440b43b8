package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.Env;
import dev.countersign.support.problems.UsageProblem;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ActionInputsTest {

  @Test
  void all_namesAreSnakeCaseAndOptionsKebabCase() {
    assertThat(ActionInputs.all())
        .allSatisfy(
            i -> {
              assertThat(i.name()).matches("[a-z][a-z0-9_]*");
              assertThat(i.option()).matches("--[a-z][a-z0-9-]*");
            });
    assertThat(ActionInputs.all()).extracting(ActionInputs.Input::name).doesNotHaveDuplicates();
    assertThat(ActionInputs.all())
        .filteredOn(ActionInputs.Input::secret)
        .extracting(ActionInputs.Input::name)
        .containsExactly("token", "identity_token", "registry_token");
  }

  @Test
  void read_underscoreAndDashSpellings_trimmedAndBlankIsUnset() {
    Env env =
        Env.of(
            Map.of("INPUT_PUSH-ATTEMPTS", " 5 ", "INPUT_SIGNED_DIR", "out", "INPUT_BRANCH", "   "));

    assertThat(ActionInputs.read(env, "push_attempts")).hasValue("5");
    assertThat(ActionInputs.read(env, "signed_dir")).hasValue("out");
    assertThat(ActionInputs.read(env, "branch")).isEmpty();
    assertThat(ActionInputs.read(env, "mode")).isEmpty();
  }

  @Test
  void arguments_mapsEveryKindOfInput() {
    Env env =
        Env.of(
            Map.of(
                "INPUT_TOKEN", "ghs_x",
                "INPUT_BRANCH", "main",
                "INPUT_DIRS", "unsigned:signed\n\n  apps/in:apps/out  \n",
                "INPUT_SIGNOFF", "true",
                "INPUT_DRY_RUN", "false",
                "INPUT_COMMIT_MESSAGE", "-starts with a dash",
                "INPUT_PUSH_ATTEMPTS", "4"));

    assertThat(ActionInputs.arguments(env, "run", option -> true))
        .containsExactly(
            "run",
            "--token=ghs_x",
            "--branch=main",
            "--dir=unsigned:signed",
            "--dir=apps/in:apps/out",
            "--push-attempts=4",
            "--signoff",
            "--commit-message=-starts with a dash");
    assertThat(ActionInputs.secretValues(env)).containsExactly("ghs_x");
    assertThat(ActionInputs.masks(env)).containsExactly("ghs_x", "eC1hY2Nlc3MtdG9rZW46Z2hzX3g=");
  }

  @Test
  void arguments_nothingSet_isJustTheCommand() {
    assertThat(ActionInputs.arguments(Env.of(Map.of("INPUT_MODE", "")), "run", option -> true))
        .containsExactly("run");
  }

  @Test
  void arguments_valueInputOnOneLine_isOneArgument() {
    assertThat(
            ActionInputs.arguments(
                Env.of(Map.of("INPUT_BRANCH", "release/1.x\n", "INPUT_POLICY", "p.yaml")),
                "run",
                option -> true))
        .containsExactly("run", "--branch=release/1.x", "--policy=p.yaml");
  }

  @Test
  void arguments_valueInputWithASecondLine_isAUsageProblemNamingTheInput() {
    // One value is expected: neither line is picked, and the value reaches no option (a branch
    // name or a file name with a line break in it).
    assertThatThrownBy(
            () ->
                ActionInputs.arguments(
                    Env.of(Map.of("INPUT_BRANCH", "main\nrelease")), "run", option -> true))
        .isInstanceOf(UsageProblem.class)
        .hasMessage("Input branch takes one line, got 2");
    assertThatThrownBy(
            () ->
                ActionInputs.arguments(
                    Env.of(Map.of("INPUT_POLICY", "a.yaml\r\nb.yaml")), "check", option -> true))
        .isInstanceOf(UsageProblem.class)
        .hasMessage("Input policy takes one line, got 2");
  }

  @Test
  void arguments_bodyKeepsItsLines() {
    assertThat(
            ActionInputs.arguments(
                Env.of(Map.of("INPUT_BODY", "Nightly refresh.\n\nSee the runbook.\n")),
                "run",
                option -> true))
        .containsExactly("run", "--body=Nightly refresh.\n\nSee the runbook.");
  }

  @Test
  void arguments_flagThatIsNotABoolean_isAUsageProblem() {
    assertThatThrownBy(
            () ->
                ActionInputs.arguments(
                    Env.of(Map.of("INPUT_DRY_RUN", "yes")), "run", option -> true))
        .isInstanceOf(UsageProblem.class)
        .hasMessage("Input dry_run must be true or false, got \"yes\"");
  }
}
