package dev.countersign.policy;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.IdentityRule;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads and validates {@code .countersign/policy.yaml}. Strict: unknown keys, wrong types, missing
 * required fields, invalid regular expressions and paths that leave the repository are {@link
 * InputProblem}s naming the file, line and key. Stateless and thread-safe.
 */
public final class PolicyFileLoader {

  private static final Set<String> TOP_LEVEL =
      Set.of(
          "apiVersion",
          "kind",
          "annotationDomain",
          "signers",
          "keys",
          "minSigners",
          "ignoreFields",
          "directories",
          "governance");
  private static final Set<String> SIGNER_KEYS =
      Set.of("issuer", "issuerRegExp", "subject", "subjectRegExp");
  private static final Set<String> KEY_KEYS = Set.of("path", "pem");
  private static final Set<String> DIRECTORY_KEYS = Set.of("unsigned", "signed");
  private static final Set<String> GOVERNANCE_KEYS = Set.of("policies", "params");

  /**
   * Loads the policy file at {@code relativeFile} below {@code repositoryRoot}.
   *
   * @throws UsageProblem when the file does not exist
   * @throws InputProblem when it is not a valid trust policy
   */
  public PolicyFile load(Path repositoryRoot, Path relativeFile) {
    return load(RepositoryFiles.workTree(repositoryRoot), relativeFile);
  }

  /**
   * Loads the policy file at {@code relativeFile} in {@code files} (the work tree, or a commit).
   *
   * @throws UsageProblem when the file does not exist there
   * @throws InputProblem when it is not a valid trust policy
   */
  public PolicyFile load(RepositoryFiles files, Path relativeFile) {
    Optional<byte[]> bytes = files.readRuleFile(relativeFile);
    if (bytes.isEmpty()) {
      throw new UsageProblem(
          "No trust policy found at "
              + relativeFile
              + " in "
              + files.describe()
              + " while loading the trust policy",
          "perhaps you should run \"countersign init\" or pass the identity flags on the command"
              + " line");
    }
    return parse(relativeFile, new String(bytes.get(), StandardCharsets.UTF_8));
  }

  /** Parses policy text; {@code source} is how problems name the file. */
  public PolicyFile parse(Path source, String text) {
    List<ManifestDocument> documents = YamlTree.parseAll(source, text);
    if (documents.isEmpty()) {
      throw new InputProblem(
          source,
          0,
          "the trust policy is empty",
          "perhaps you should start from \"countersign init\"");
    }
    if (documents.size() > 1) {
      throw new InputProblem(
          source,
          documents.get(1).line(),
          "the trust policy must be a single YAML document",
          "perhaps you should remove the extra \"---\"");
    }
    ManifestDocument document = documents.get(0);
    Schema schema = new Schema(source, document);
    Map<String, Object> root = document.content();
    schema.allowOnly("", root, TOP_LEVEL);

    schema.requireValue(root, "", "apiVersion", PolicyFile.API_VERSION);
    schema.requireValue(root, "", "kind", PolicyFile.KIND);

    AnnotationDomain domain = AnnotationDomain.DEFAULT;
    Optional<String> domainName = schema.string(root, "", "annotationDomain");
    if (domainName.isPresent()) {
      try {
        domain = new AnnotationDomain(domainName.get());
      } catch (IllegalArgumentException e) {
        throw schema.problem("annotationDomain", e.getMessage(), null);
      }
    }

    List<PolicyFile.Signer> signers = signers(schema, root);
    List<PolicyFile.KeySource> keys = keys(schema, root);
    if (signers.isEmpty() && keys.isEmpty()) {
      throw schema.problem(
          "",
          "the trust policy names no signer: both \"signers\" and \"keys\" are empty",
          "perhaps you should add the signing workflow's identity under \"signers\"");
    }

    long minSigners = schema.integer(root, "", "minSigners").orElse(1L);
    if (minSigners < 1 || minSigners > signers.size() + keys.size()) {
      throw schema.problem(
          "minSigners",
          "\"minSigners\" is "
              + minSigners
              + " but must be between 1 and the number of signers and keys ("
              + (signers.size() + keys.size())
              + ")",
          null);
    }

    List<String> ignoreFields = schema.strings(root, "", "ignoreFields");
    for (int i = 0; i < ignoreFields.size(); i++) {
      if (ignoreFields.get(i).isBlank()) {
        throw schema.problem(
            "ignoreFields." + i,
            "\"ignoreFields[" + i + "]\" is empty",
            "perhaps you should remove it");
      }
    }

    return new PolicyFile(
        source,
        domain,
        signers,
        keys,
        (int) minSigners,
        ignoreFields,
        directories(schema, root),
        governance(schema, root));
  }

  private static List<PolicyFile.Signer> signers(Schema schema, Map<String, Object> root) {
    List<PolicyFile.Signer> signers = new ArrayList<>();
    for (Schema.Item item : schema.mappings(root, "", "signers")) {
      schema.allowOnly(item.path(), item.map(), SIGNER_KEYS);
      Side subject = side(schema, item, "subject", "subjectRegExp");
      Side issuer = side(schema, item, "issuer", "issuerRegExp");
      signers.add(
          new PolicyFile.Signer(
              new IdentityRule(subject.value(), subject.regex(), issuer.value(), issuer.regex()),
              schema.lineOf(item.path())));
    }
    return signers;
  }

  private record Side(String value, boolean regex) {}

  private static Side side(Schema schema, Schema.Item item, String exactKey, String regexKey) {
    Optional<String> exact = schema.string(item.map(), item.path(), exactKey);
    Optional<String> regex = schema.string(item.map(), item.path(), regexKey);
    if (exact.isPresent() && regex.isPresent()) {
      throw schema.problem(
          item.path() + "." + regexKey,
          "both \"" + exactKey + "\" and \"" + regexKey + "\" are set",
          "perhaps you should keep only one");
    }
    if (exact.isEmpty() && regex.isEmpty()) {
      throw schema.problem(
          item.path(),
          "\""
              + exactKey
              + "\" (or \""
              + regexKey
              + "\") is required in "
              + item.path().replaceFirst("\\.(\\d+)$", "[$1]"),
          null);
    }
    if (exact.isPresent()) {
      if (exact.get().isBlank()) {
        throw schema.problem(
            item.path() + "." + exactKey,
            "\"" + exactKey + "\" is empty; an empty identity would accept any signer",
            null);
      }
      return new Side(exact.get(), false);
    }
    String pattern = regex.get();
    try {
      Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      throw new InputProblem(
          schema.file(),
          schema.lineOf(item.path() + "." + regexKey),
          "the regular expression \""
              + pattern
              + "\" in \""
              + regexKey
              + "\" is invalid ("
              + e.getDescription()
              + ")",
          "perhaps you should escape special characters such as '.' and '?' with a backslash",
          e);
    }
    return new Side(pattern, true);
  }

  private static List<PolicyFile.KeySource> keys(Schema schema, Map<String, Object> root) {
    List<PolicyFile.KeySource> keys = new ArrayList<>();
    for (Schema.Item item : schema.mappings(root, "", "keys")) {
      schema.allowOnly(item.path(), item.map(), KEY_KEYS);
      Optional<String> path = schema.string(item.map(), item.path(), "path");
      Optional<String> pem = schema.string(item.map(), item.path(), "pem");
      if (path.isPresent() == pem.isPresent()) {
        throw schema.problem(
            item.path(), "each key needs exactly one of \"path\" or \"pem\"", null);
      }
      int line = schema.lineOf(item.path());
      if (path.isPresent()) {
        keys.add(
            new PolicyFile.KeySource(
                Optional.of(relativePath(schema, item.path() + ".path", path.get())),
                Optional.empty(),
                line));
      } else {
        // Parse now so a broken inline key is reported while loading, with its line.
        PublicKeys.parse(
            pem.get().getBytes(StandardCharsets.UTF_8),
            schema.file(),
            schema.lineOf(item.path() + ".pem"));
        keys.add(new PolicyFile.KeySource(Optional.empty(), pem, line));
      }
    }
    return keys;
  }

  private static List<PolicyFile.DirectoryPair> directories(
      Schema schema, Map<String, Object> root) {
    if (!root.containsKey("directories")) {
      return List.of(new PolicyFile.DirectoryPair(Path.of("unsigned"), Path.of("signed")));
    }
    List<PolicyFile.DirectoryPair> pairs = new ArrayList<>();
    for (Schema.Item item : schema.mappings(root, "", "directories")) {
      schema.allowOnly(item.path(), item.map(), DIRECTORY_KEYS);
      Path unsigned =
          relativePath(
              schema,
              item.path() + ".unsigned",
              schema.requiredString(item.map(), item.path(), "unsigned"));
      Path signed =
          relativePath(
              schema,
              item.path() + ".signed",
              schema.requiredString(item.map(), item.path(), "signed"));
      if (unsigned.equals(signed) || unsigned.startsWith(signed) || signed.startsWith(unsigned)) {
        throw schema.problem(
            item.path(),
            "\"unsigned\" and \"signed\" must be separate directories, not "
                + unsigned
                + " and "
                + signed,
            null);
      }
      pairs.add(new PolicyFile.DirectoryPair(unsigned, signed));
    }
    if (pairs.isEmpty()) {
      throw schema.problem(
          "directories",
          "\"directories\" is empty",
          "perhaps you should remove it to use unsigned/ and signed/");
    }
    return pairs;
  }

  private static PolicyFile.Governance governance(Schema schema, Map<String, Object> root) {
    Optional<Map<String, Object>> section = schema.mapping(root, "", "governance");
    if (section.isEmpty()) {
      return PolicyFile.Governance.none();
    }
    Map<String, Object> map = section.get();
    schema.allowOnly("governance", map, GOVERNANCE_KEYS);
    List<String> locations = schema.strings(map, "governance", "policies");
    List<Path> policies = new ArrayList<>();
    for (int i = 0; i < locations.size(); i++) {
      policies.add(relativePath(schema, "governance.policies." + i, locations.get(i)));
    }
    Optional<Path> params =
        schema
            .string(map, "governance", "params")
            .map(p -> relativePath(schema, "governance.params", p));
    return new PolicyFile.Governance(policies, params);
  }

  /**
   * Paths in the policy are relative to the repository root and name something inside it, not the
   * root itself.
   */
  private static Path relativePath(Schema schema, String path, String value) {
    Path result;
    try {
      result = Path.of(value).normalize();
    } catch (InvalidPathException e) {
      throw schema.problem(path, "\"" + value + "\" is not a valid path", null);
    }
    if (value.isBlank()
        || result.isAbsolute()
        || result.startsWith("..")
        || value.startsWith("/")) {
      throw schema.problem(
          path,
          "\"" + value + "\" must be a path inside the repository",
          "perhaps you should write it relative to the repository root");
    }
    if (result.toString().isEmpty()) {
      // Neither reader takes the root: a commit's tree is read by path below it, and the work
      // tree's walk would enter .git.
      throw schema.problem(
          path,
          "\"" + value + "\" is the repository root; name a file or directory inside it",
          "perhaps you should write the file or directory it means, relative to the repository"
              + " root");
    }
    return result;
  }
}
