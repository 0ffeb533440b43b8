package dev.countersign.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.doctor.ChainDoctor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every rule id `check` and `doctor` can report is in docs/check.md's tables, where a user lands
 * from a SARIF result or an annotation title: a rule added without its line fails here.
 */
class RuleIdsDocumentedTest {

  @Test
  void everyRuleId_isDocumentedInCheckMd() throws Exception {
    String docs = Files.readString(Path.of("docs/check.md"));
    List<String> ids = new ArrayList<>();
    for (Class<?> rules :
        List.of(
            MergeGate.class,
            UnsignedManifestRules.class,
            SignedChangeRules.class,
            RuleChanges.class,
            ServerDefaultingRule.class,
            GitOpsFiles.class,
            SourceIgnoreChanges.class,
            ChainDoctor.class)) {
      for (Field field : rules.getDeclaredFields()) {
        if ((field.getName().startsWith("RULE_") || field.getName().equals("RULE"))
            && Modifier.isStatic(field.getModifiers())
            && field.getType() == String.class) {
          field.setAccessible(true);
          ids.add((String) field.get(null));
        }
      }
    }

    assertThat(ids).hasSizeGreaterThanOrEqualTo(27).doesNotHaveDuplicates();
    assertThat(ids).allSatisfy(id -> assertThat(docs).as(id).contains("`" + id + "`"));
  }
}
