package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * action.yml must declare exactly the inputs the code reads, snake_case, and run the `action`
 * entry.
 */
class ActionYamlTest {

  private static JsonNode actionYml() throws Exception {
    return new ObjectMapper(new YAMLFactory()).readTree(Path.of("action.yml").toFile());
  }

  @Test
  void inputs_equalTheActionInputsTable_plusCommand() throws Exception {
    Set<String> declared = new LinkedHashSet<>();
    actionYml().get("inputs").fieldNames().forEachRemaining(declared::add);

    List<String> expected = new ArrayList<>();
    expected.add(ActionInputs.COMMAND);
    ActionInputs.all().forEach(i -> expected.add(i.name()));

    assertThat(declared).containsExactlyElementsOf(expected);
    assertThat(declared).allMatch(name -> name.matches("[a-z][a-z0-9]*(_[a-z0-9]+)*"));
  }

  @Test
  void runs_prebuiltImage_withTheActionEntryPoint() throws Exception {
    JsonNode runs = actionYml().get("runs");
    assertThat(runs.get("using").asText()).isEqualTo("docker");
    assertThat(runs.get("image").asText()).startsWith("docker://");
    assertThat(runs.get("args").get(0).asText()).isEqualTo("action");
  }

  @Test
  void image_isTheReleaseOfThisVersion() throws Exception {
    java.util.Properties version = new java.util.Properties();
    try (var in = ActionYamlTest.class.getResourceAsStream("/dev/countersign/version.properties")) {
      version.load(in);
    }
    String release = version.getProperty("version").replace("-SNAPSHOT", "");
    assertThat(actionYml().get("runs").get("image").asText()).endsWith(":v" + release);
  }

  @Test
  void tokenDefaultsToTheJobToken_andCommandToRun() throws Exception {
    JsonNode inputs = actionYml().get("inputs");
    assertThat(inputs.get("token").get("default").asText()).isEqualTo("${{ github.token }}");
    assertThat(inputs.get("command").get("default").asText())
        .isEqualTo(ActionInputs.DEFAULT_COMMAND);
  }
}
