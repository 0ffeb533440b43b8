package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's "Action inputs" table and its "Outputs:" paragraph are where a workflow author looks
 * up the Action: every input of {@link ActionInputs} has a row naming it and the option it sets,
 * and every output action.yml declares is named. An input added to the table without its line here
 * (as {@code base} and {@code policy_from} were) fails.
 */
class ActionReadmeTest {

  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  private static String section(String readme, String heading) {
    int start = readme.indexOf(heading);
    assertThat(start).as(heading).isNotNegative();
    int end = readme.indexOf("\n## ", start + heading.length());
    return readme.substring(start, end < 0 ? readme.length() : end);
  }

  private static List<String> code(String cell) {
    List<String> names = new ArrayList<>();
    Matcher m = CODE.matcher(cell);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /** The rows of the inputs table as [inputs, options]; "same" means the inputs' own names. */
  private static List<List<List<String>>> rows(String section) {
    List<List<List<String>>> rows = new ArrayList<>();
    for (String line : section.lines().toList()) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("(?<!\\\\)\\|");
      List<String> inputs = code(cells[1]);
      List<String> options =
          cells[2].strip().equals("same")
              ? inputs.stream().map(i -> "--" + i.replace('_', '-')).toList()
              : code(cells[2]);
      rows.add(List.of(inputs, options));
    }
    return rows;
  }

  @Test
  void inputsTable_hasARowForEveryInput_namingItsOption() throws Exception {
    List<List<List<String>>> rows =
        rows(section(Files.readString(Path.of("README.md")), "### Action inputs"));

    assertThat(rows).anyMatch(row -> row.get(0).contains(ActionInputs.COMMAND));
    for (ActionInputs.Input input : ActionInputs.all()) {
      assertThat(rows)
          .as(
              "README's Action inputs table: a row for `%s` naming `%s`",
              input.name(), input.option())
          .anyMatch(
              row -> row.get(0).contains(input.name()) && row.get(1).contains(input.option()));
    }
  }

  @Test
  void outputsParagraph_namesEveryOutputOfActionYml() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int start = readme.indexOf("\nOutputs: ");
    assertThat(start).isNotNegative();
    List<String> named = code(readme.substring(start, readme.indexOf("\n\n", start)));

    List<String> declared = new ArrayList<>();
    new ObjectMapper(new YAMLFactory())
        .readTree(Path.of("action.yml").toFile())
        .get("outputs")
        .fieldNames()
        .forEachRemaining(declared::add);

    assertThat(declared).isNotEmpty();
    assertThat(named).containsAll(declared);
  }
}
