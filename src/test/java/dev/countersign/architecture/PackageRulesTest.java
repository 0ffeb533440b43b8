package dev.countersign.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The package rules ({@link PackageRules}) on countersign's main classes (tests are not imported).
 * Run by ArchUnit's JUnit 5 engine, so each rule is its own test in the report; a failure lists
 * every offending dependency or call with its source line.
 */
@AnalyzeClasses(
    packages = PackageRules.COUNTERSIGN,
    importOptions = ImportOption.DoNotIncludeTests.class)
class PackageRulesTest {

  private static final PackageRules RULES = PackageRules.under(PackageRules.COUNTERSIGN);

  @ArchTest static final ArchRule capabilitiesAreAcyclic = RULES.capabilitiesAreAcyclic();

  @ArchTest
  static final ArchRule manifestKnowsNoSignerCliOrAction = RULES.manifestKnowsNoSignerCliOrAction();

  @ArchTest static final ArchRule signingKnowsNoGit = RULES.signingKnowsNoGit();

  @ArchTest static final ArchRule verificationKnowsNoSigning = RULES.verificationKnowsNoSigning();

  @ArchTest static final ArchRule useCasesKnowNoFrontDoor = RULES.useCasesKnowNoFrontDoor();

  @ArchTest static final ArchRule onlyMainReadsTheEnvironment = RULES.onlyMainReadsTheEnvironment();

  @ArchTest
  static final ArchRule onlyMainReadsSystemProperties = RULES.onlyMainReadsSystemProperties();

  @ArchTest static final ArchRule onlyMainExits = RULES.onlyMainExits();

  @ArchTest
  static final ArchRule noStackTraceToStandardStreams = RULES.noStackTraceToStandardStreams();

  @ArchTest
  static final ArchRule onlyProblemHandlerPrintsStackTraces =
      RULES.onlyProblemHandlerPrintsStackTraces();

  @ArchTest
  static final ArchRule filesAreDecodedThroughTheFileDecoder =
      RULES.filesAreDecodedThroughTheFileDecoder();

  /**
   * The dependency list in docs/development.md is the real one, so the diagram beside it cannot
   * drift. On a difference the failure prints the block to paste.
   */
  @ArchTest
  static void developmentMdListsTheRealPackageDependencies(JavaClasses classes) throws IOException {
    PackageDependencies actual = PackageDependencies.of(classes, PackageRules.COUNTERSIGN);
    Optional<PackageDependencies> documented =
        PackageDependencies.documentedIn(Path.of("docs/development.md"));

    assertThat(documented.map(PackageDependencies::asMap))
        .as(
            "docs/development.md, the block after %s; it should read:%n%s",
            PackageDependencies.MARKER, actual.render())
        .contains(actual.asMap());
  }
}
