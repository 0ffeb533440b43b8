package dev.countersign.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

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
}
