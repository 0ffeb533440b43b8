package dev.countersign.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The package rules of {@code docs/development.md}, for the classes under one root package. {@link
 * PackageRulesTest} checks them on {@code dev.countersign}'s main classes; {@link
 * PackageRulesCatchViolationsTest} checks that each one reports a violation planted in the fixture
 * root, so a rule that no longer matches anything cannot pass silently.
 *
 * <p>Calls are matched as accesses ({@code accessTargetWhere}), which covers method references
 * ({@code System::getenv}) as well as calls.
 */
final class PackageRules {

  /** The production root. */
  static final String COUNTERSIGN = "dev.countersign";

  /**
   * Classes that may read a system property besides {@code cli.Main}, with the reason. Both read
   * JVM settings, not the user's environment: {@code signing.SigstoreHttp} raises the JDK's
   * keep-alive cache ({@code http.maxConnections}) unless the user chose a value; {@code
   * git.FileStoreTiming} names the JVM ({@code java.vendor}, {@code java.version}) the way jgit
   * keys its file-store timing cache.
   */
  static final Set<String> JVM_SETTINGS_READERS =
      Set.of("signing.SigstoreHttp", "git.FileStoreTiming");

  private final String root;

  private PackageRules(String root) {
    this.root = root;
  }

  static PackageRules under(String root) {
    return new PackageRules(root);
  }

  List<ArchRule> all() {
    return List.of(
        capabilitiesAreAcyclic(),
        manifestKnowsNoSignerCliOrAction(),
        signingKnowsNoGit(),
        verificationKnowsNoSigning(),
        useCasesKnowNoFrontDoor(),
        onlyMainReadsTheEnvironment(),
        onlyMainReadsSystemProperties(),
        onlyMainExits(),
        noStackTraceToStandardStreams(),
        onlyProblemHandlerPrintsStackTraces(),
        filesAreDecodedThroughTheFileDecoder());
  }

  /** Capabilities ({@code root.X..}) depend on each other without cycles. */
  ArchRule capabilitiesAreAcyclic() {
    return slices()
        .matching(root + ".(*)..")
        .namingSlices("$1")
        .should()
        .beFreeOfCycles()
        .because("capability packages form the acyclic graph drawn in docs/development.md");
  }

  /** The manifest format is the bottom layer: it reads and writes files, it signs nothing. */
  ArchRule manifestKnowsNoSignerCliOrAction() {
    return noClasses()
        .that()
        .resideInAPackage(root + ".manifest..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(root + ".signing..", root + ".cli..", root + ".action..")
        .because("the manifest format knows no signer and no front door");
  }

  /** Signing turns messages into signatures; what is committed where is the pipeline's business. */
  ArchRule signingKnowsNoGit() {
    return noClasses()
        .that()
        .resideInAPackage(root + ".signing..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(root + ".git..", "org.eclipse.jgit..")
        .because("signing knows no git: the pipeline decides what is committed");
  }

  /** Verification must not share code paths with the signer it judges. */
  ArchRule verificationKnowsNoSigning() {
    return noClasses()
        .that()
        .resideInAPackage(root + ".verification..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(root + ".signing..")
        .because("the verifier must not trust the signer's own code");
  }

  /**
   * Use cases (pipeline, promotion, gate, governance, init, doctor, oci, ...) and everything below
   * them never import the front doors: {@code cli} (picocli commands) and {@code action} (the
   * GitHub Actions runtime, known only to {@code cli}).
   */
  ArchRule useCasesKnowNoFrontDoor() {
    return noClasses()
        .that()
        .resideOutsideOfPackages(root + ".cli..", root + ".action..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(root + ".cli..", root + ".action..")
        .because("one code path for CLI and Action: use cases take values, not front-door types");
  }

  /** {@code System.getenv} only in the composition root; everything else gets an {@code Env}. */
  ArchRule onlyMainReadsTheEnvironment() {
    return noClasses()
        .that()
        .doNotHaveFullyQualifiedName(root + ".cli.Main")
        .should()
        .accessTargetWhere(member(System.class, "getenv"))
        .because("the environment comes in through constructors (support.Env) from cli.Main");
  }

  /** System properties are environment too; two classes read JVM settings, named above. */
  ArchRule onlyMainReadsSystemProperties() {
    return noClasses()
        .that()
        .doNotHaveFullyQualifiedName(root + ".cli.Main")
        .and(notOneOf(JVM_SETTINGS_READERS))
        .should()
        .accessTargetWhere(
            member(System.class, "getProperty", "getProperties", "setProperty", "clearProperty"))
        .because("configuration comes in through constructors from cli.Main");
  }

  /** Only the composition root ends the process, after the exit code is known. */
  ArchRule onlyMainExits() {
    return noClasses()
        .that()
        .doNotHaveFullyQualifiedName(root + ".cli.Main")
        .should()
        .accessTargetWhere(member(System.class, "exit"))
        .orShould()
        .accessTargetWhere(member(java.lang.Runtime.class, "exit", "halt"))
        .because("a problem is an exception with an exit code; cli.Main alone exits");
  }

  /**
   * {@code printStackTrace()} and {@code printStackTrace(PrintStream)} write past the one log
   * writer (in GitHub Actions, unneutralized lines the runner may execute as commands).
   */
  ArchRule noStackTraceToStandardStreams() {
    return noClasses()
        .should()
        .accessTargetWhere(printStackTrace(false))
        .because("every line goes through the runtime's writers (action.WorkflowLog in Actions)");
  }

  /** {@code --stacktrace} is printed by {@code cli.ProblemHandler} into the runtime's writer. */
  ArchRule onlyProblemHandlerPrintsStackTraces() {
    return noClasses()
        .that()
        .doNotHaveFullyQualifiedName(root + ".cli.ProblemHandler")
        .should()
        .accessTargetWhere(printStackTrace(true))
        .because("problems are reported once, by cli.ProblemHandler, with exit codes and hints");
  }

  /**
   * A signed file's documents are decoded through one {@code SignedManifestFormat.FileDecoder}: it
   * decodes each distinct set of signature annotations once and holds the file to one allowance for
   * what they gunzip to. Decoding document by document went around both (minutes of gunzipping for
   * one file in {@code doctor} and {@code sign}).
   */
  ArchRule filesAreDecodedThroughTheFileDecoder() {
    String format = root + ".manifest.SignedManifestFormat";
    return noClasses()
        .that()
        .doNotHaveFullyQualifiedName(format)
        .and()
        .doNotHaveFullyQualifiedName(format + "$FileDecoder")
        .should()
        .accessTargetWhere(
            accessTo(
                format + ".decode(ManifestDocument)",
                target ->
                    target.getOwner().getName().equals(format)
                        && target.getName().equals("decode")
                        && target instanceof AccessTarget.CodeUnitAccessTarget codeUnit
                        && codeUnit.getRawParameterTypes().size() == 1
                        && codeUnit
                            .getRawParameterTypes()
                            .get(0)
                            .getName()
                            .equals(root + ".manifest.ManifestDocument")))
        .because("a file's documents share one decoder and one allowance (FileDecoder)");
  }

  private DescribedPredicate<JavaClass> notOneOf(Set<String> relativeNames) {
    return DescribedPredicate.describe(
        "are not " + relativeNames,
        javaClass -> !relativeNames.contains(javaClass.getName().substring(root.length() + 1)));
  }

  private static DescribedPredicate<JavaAccess<?>> member(Class<?> owner, String... names) {
    Set<String> wanted = Set.of(names);
    return accessTo(
        owner.getName() + "." + String.join("|", names),
        target -> target.getOwner().isEquivalentTo(owner) && wanted.contains(target.getName()));
  }

  /**
   * A {@code printStackTrace} call; {@code toWriter}: the {@code PrintWriter} overload only, else
   * the others. Matched by name on any owner: the classes are imported without their third-party
   * supertypes (archunit.properties, for speed), so "is a Throwable" cannot be asked of, say, an
   * {@code IOException} receiver.
   */
  private static DescribedPredicate<JavaAccess<?>> printStackTrace(boolean toWriter) {
    return accessTo(
        toWriter
            ? "printStackTrace(PrintWriter)"
            : "printStackTrace() or printStackTrace(PrintStream)",
        target -> {
          if (!target.getName().equals("printStackTrace")
              || !(target instanceof AccessTarget.CodeUnitAccessTarget codeUnit)) {
            return false;
          }
          List<JavaClass> parameters = codeUnit.getRawParameterTypes();
          boolean writer =
              parameters.size() == 1 && parameters.get(0).isEquivalentTo(PrintWriter.class);
          return writer == toWriter;
        });
  }

  private static DescribedPredicate<JavaAccess<?>> accessTo(
      String description, Predicate<AccessTarget> target) {
    return JavaAccess.Predicates.target(DescribedPredicate.describe(description, target));
  }
}
