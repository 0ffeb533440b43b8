package dev.countersign.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each package rule, evaluated on the planted violations in {@code architecture.fixture}, reports
 * exactly the offending fixture classes and spares the allowed ones ({@code cli.Main} reads the
 * environment and exits, {@code cli.ProblemHandler} prints {@code --stacktrace}). So a rule that
 * stops matching (a renamed package, a wrong method name) fails here instead of passing silently on
 * the real code.
 */
class PackageRulesCatchViolationsTest {

  private static final String ROOT = "dev.countersign.architecture.fixture";
  private static final PackageRules RULES = PackageRules.under(ROOT);
  private static JavaClasses fixtures;

  @BeforeAll
  static void importFixtures() {
    fixtures = new ClassFileImporter().importPackages(ROOT);
  }

  /** A rule, the fixture classes it must report, and those it must not. */
  static Stream<Arguments> rules() {
    return Stream.of(
        rule(
            PackageRules::manifestKnowsNoSignerCliOrAction,
            List.of("manifest.ManifestThatSigns", "manifest.ManifestThatKnowsTheCli"),
            List.of("cli.Main")),
        rule(
            PackageRules::signingKnowsNoGit,
            List.of("signing.SignerThatCommits", "signing.SignerThatUsesJGit"),
            List.of("signing.Signer")),
        rule(
            PackageRules::verificationKnowsNoSigning,
            List.of("verification.VerifierThatSigns"),
            List.of()),
        rule(
            PackageRules::useCasesKnowNoFrontDoor,
            List.of("pipeline.UseCaseThatKnowsTheAction", "manifest.ManifestThatKnowsTheCli"),
            List.of("cli.Main")),
        rule(
            PackageRules::onlyMainReadsTheEnvironment,
            List.of("pipeline.UseCaseThatReadsTheEnvironment"),
            List.of("cli.Main")),
        rule(
            PackageRules::onlyMainReadsSystemProperties,
            List.of("pipeline.UseCaseThatReadsAProperty"),
            List.of("cli.Main")),
        rule(
            PackageRules::onlyMainExits,
            List.of("pipeline.UseCaseThatExits", "pipeline.UseCaseThatHalts"),
            List.of("cli.Main")),
        rule(
            PackageRules::noStackTraceToStandardStreams,
            List.of("pipeline.UseCaseThatPrintsStackTraces"),
            List.of("cli.ProblemHandler", "pipeline.UseCaseThatPrintsStackTracesToAWriter")),
        rule(
            PackageRules::onlyProblemHandlerPrintsStackTraces,
            List.of("pipeline.UseCaseThatPrintsStackTracesToAWriter"),
            List.of("cli.ProblemHandler", "pipeline.UseCaseThatPrintsStackTraces")),
        rule(
            PackageRules::filesAreDecodedThroughTheFileDecoder,
            List.of("pipeline.UseCaseThatDecodesDocumentByDocument"),
            List.of(
                "manifest.SignedManifestFormat",
                "manifest.SignedManifestFormat$FileDecoder",
                "pipeline.UseCaseThatDecodesThroughTheFileDecoder")));
  }

  private static Arguments rule(
      Function<PackageRules, ArchRule> rule, List<String> offenders, List<String> allowed) {
    ArchRule archRule = rule.apply(RULES);
    return Arguments.of(archRule.getDescription(), archRule, offenders, allowed);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rules")
  void reportsThePlantedViolations(
      String description, ArchRule rule, List<String> offenders, List<String> allowed) {
    EvaluationResult result = rule.evaluate(fixtures);

    assertThat(result.hasViolation()).as(description).isTrue();
    List<String> violators =
        result.getFailureReport().getDetails().stream()
            .map(PackageRulesCatchViolationsTest::originClass)
            .distinct()
            .toList();
    assertThat(violators)
        .as("classes reported by: %s%n%s", description, result.getFailureReport())
        .containsExactlyInAnyOrderElementsOf(offenders.stream().map(n -> ROOT + "." + n).toList());
    for (String spared : allowed) {
      assertThat(violators).as(description).doesNotContain(ROOT + "." + spared);
    }
  }

  @Test
  void theEnvironmentRuleSeesMethodReferencesAsWellAsCalls() {
    List<String> details =
        RULES.onlyMainReadsTheEnvironment().evaluate(fixtures).getFailureReport().getDetails();

    assertThat(details)
        .anySatisfy(line -> assertThat(line).contains("token()").contains("calls method"))
        .anySatisfy(line -> assertThat(line).contains("all()").contains("references method"));
  }

  @Test
  void theStackTraceRuleSeesEveryOverloadButThePrintWriterOne() {
    List<String> details =
        RULES.noStackTraceToStandardStreams().evaluate(fixtures).getFailureReport().getDetails();

    assertThat(details)
        .anySatisfy(line -> assertThat(line).contains("printStackTrace()"))
        .anySatisfy(line -> assertThat(line).contains("printStackTrace(java.io.PrintStream)"))
        .noneSatisfy(line -> assertThat(line).contains("printStackTrace(java.io.PrintWriter)"));
  }

  @Test
  void theCycleRuleReportsTheCycleBetweenTwoCapabilities() {
    EvaluationResult result = RULES.capabilitiesAreAcyclic().evaluate(fixtures);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains("was violated (1 times)")
        .containsPattern("Cycle detected: alpha ->\\s+beta ->\\s+alpha")
        .contains("Dependencies of alpha", "Dependencies of beta");
  }

  @Test
  void everyRuleHasPlantedViolations() {
    List<String> covered =
        Stream.concat(
                rules().map(arguments -> (String) arguments.get()[0]),
                Stream.of(RULES.capabilitiesAreAcyclic().getDescription()))
            .toList();

    assertThat(covered)
        .containsExactlyInAnyOrderElementsOf(
            RULES.all().stream().map(ArchRule::getDescription).toList());
  }

  /** The class a violation line starts from: "Method <a.B.m()> calls ..." gives "a.B". */
  private static String originClass(String detail) {
    String origin = detail.substring(detail.indexOf('<') + 1, detail.indexOf('>'));
    String member = origin.contains("(") ? origin.substring(0, origin.indexOf('(')) : origin;
    boolean isClass = detail.startsWith("Class <");
    String owner = isClass ? member : member.substring(0, member.lastIndexOf('.'));
    int nested = owner.indexOf('$');
    return nested < 0 ? owner : owner.substring(0, nested);
  }
}
