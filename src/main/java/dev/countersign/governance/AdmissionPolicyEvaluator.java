package dev.countersign.governance;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOptions;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelAttributePattern;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelUnknownSet;
import dev.cel.runtime.PartialVars;
import dev.cel.runtime.Program;
import dev.countersign.admission.KubernetesKinds;
import dev.countersign.governance.AdmissionPolicy.NamedExpression;
import dev.countersign.governance.AdmissionPolicy.Validation;
import dev.countersign.governance.PolicyFinding.Severity;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.Hints;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Evaluates ValidatingAdmissionPolicies against manifests offline, as the API server would for a
 * CREATE of each object, with Google's cel-java.
 *
 * <p>Per object and policy: {@code matchConstraints.resourceRules} (kind mapped to its resource
 * name by {@link ResourceNames}), {@code excludeResourceRules}, {@code objectSelector} (on the
 * object's labels; {@code namespaceSelector} is treated as matching because there is no namespace
 * object offline), then every {@code matchConditions} expression must be true, then each validation
 * must evaluate to true. A policy that matches the object only through {@code matchPolicy:
 * Equivalent} (another version or group of the same resource, {@link EquivalentResources}) would
 * see it converted, which is not possible offline: that is an error finding, not a pass. The CEL
 * environment has {@code object}, {@code oldObject} (null), {@code request} (a minimal CREATE
 * request), {@code params}, {@code namespaceObject} (null for cluster-scoped objects; for
 * namespaced ones a CEL unknown, so an outcome that depends on it is an error finding rather than a
 * guess) and {@code variables}; the standard macros, the strings, sets and optional extensions, and
 * Kubernetes' regex functions {@code find}/{@code findAll}. Every regex function ({@code matches}
 * too, which cel-java binds itself) runs on RE2J, a port of RE2, the engine of Go's regexp that the
 * API server uses: the same syntax and semantics ({@code $} only at the end of the text), linear
 * time, no recursion. {@code object} and {@code params} are seen as the API server's decoding
 * leaves them ({@link CelValues}). {@code authorizer} is not available offline: expressions using
 * it are reported as not compiling.
 *
 * <p>All expressions are compiled once, in the constructor; those that do not compile are reported
 * by {@link #policyProblems()} and skipped afterwards. Immutable and thread-safe.
 */
public final class AdmissionPolicyEvaluator {

  /** Cap on comprehension iterations, in place of Kubernetes' cost budget. */
  /** The most of an expression a finding prints ({@link #shown}). */
  static final int PRINTED_EXPRESSION_CHARS = 200;

  /** The runtime types an expression can return, by their CEL names. */
  private static final Map<Class<?>, String> CEL_TYPE_NAMES =
      Map.of(
          String.class, "string",
          Long.class, "int",
          Double.class, "double",
          Map.class, "map",
          List.class, "list",
          NullValue.class, "null");

  private static final int MAX_ITERATIONS = 100_000;

  /** Why an outcome that depends on {@link ObjectCoordinates#unknownOffline} is not decided. */
  private static final String UNKNOWN_OFFLINE =
      "depends on namespaceObject, the object's Namespace in the cluster, which countersign does"
          + " not have offline (or on the namespace the manifest leaves to the apply)";

  private final List<CompiledPolicy> policies;
  private final List<PolicyFinding> policyProblems;
  private final Object params;

  /**
   * @param policies the policies to apply, in report order
   * @param params the parameter object for policies that declare {@code paramKind}; when empty
   *     {@code params} is null
   */
  public AdmissionPolicyEvaluator(
      List<AdmissionPolicy> policies, Optional<Map<String, Object>> params) {
    Cel cel = newCel();
    List<CompiledPolicy> compiled = new ArrayList<>();
    List<PolicyFinding> problems = new ArrayList<>();
    for (AdmissionPolicy policy : policies) {
      compiled.add(compile(cel, policy, problems));
    }
    this.policies = List.copyOf(compiled);
    this.policyProblems = List.copyOf(problems);
    this.params = params.<Object>map(CelValues::toCel).orElse(NullValue.NULL_VALUE);
  }

  /** Expressions that do not compile or cannot yield the right type; reported once per policy. */
  public List<PolicyFinding> policyProblems() {
    return policyProblems;
  }

  /** Evaluates every policy against one parsed manifest document. */
  public List<PolicyFinding> evaluate(Path file, ManifestDocument document) {
    return evaluate(file, document.content(), document::lineOf);
  }

  /**
   * Evaluates every policy against one object.
   *
   * @param file the manifest file, relative to the repository, for findings
   * @param object the Kubernetes object as plain values
   * @param lineOf source line of a dotted field path; {@code ""} gives the document's line
   * @return findings in policy order, empty when everything passed or nothing matched
   */
  public List<PolicyFinding> evaluate(
      Path file, Map<String, Object> object, ToIntFunction<String> lineOf) {
    ObjectCoordinates coordinates = ObjectCoordinates.of(object);
    Map<String, Object> activation = new HashMap<>();
    activation.put("object", CelValues.toCel(object));
    activation.put("oldObject", NullValue.NULL_VALUE);
    activation.put("namespaceObject", NullValue.NULL_VALUE);
    activation.put("request", CelValues.toCel(coordinates.request()));
    List<CelAttributePattern> unknowns = coordinates.unknownOffline();
    int line = lineOf.applyAsInt("");
    List<PolicyFinding> findings = new ArrayList<>();
    for (CompiledPolicy policy : policies) {
      if (!policy.selects(coordinates)) {
        continue;
      }
      if (policy.matchesAsWritten(coordinates)) {
        Map<String, Object> perPolicy = new HashMap<>(activation);
        perPolicy.put("params", policy.policy().paramKind() ? params : NullValue.NULL_VALUE);
        new Run(policy, file, line, coordinates.describe(), perPolicy, unknowns, findings).run();
      } else {
        policy
            .matchesOnlyAs(coordinates)
            .ifPresent(
                as -> findings.add(unconvertible(policy.policy(), file, line, coordinates, as)));
      }
    }
    return findings;
  }

  /**
   * The finding for a policy that matches the object only through {@code matchPolicy: Equivalent}:
   * the API server would evaluate it on the object converted to {@code as}, and a conversion
   * between versions (autoscaling/v1 to v2 restructures the spec; a CRD may convert by webhook) is
   * not something to guess. Refused whatever the failurePolicy: the cluster's verdict is unknown,
   * not an evaluation error.
   */
  private static PolicyFinding unconvertible(
      AdmissionPolicy policy, Path file, int line, ObjectCoordinates object, String as) {
    String written = object.apiVersion();
    String rewrite =
        as.endsWith("/*")
            ? "write it in a version of " + as.substring(0, as.length() - 2) + " the policy names"
            : "write it as " + as;
    return new PolicyFinding(
        file,
        line,
        policy.name(),
        PolicyFinding.WHOLE_POLICY,
        object.describe(),
        Hints.append(
            "applies to this "
                + written
                + " "
                + object.kind()
                + " as "
                + as
                + " (matchPolicy: Equivalent): the API server would convert the object to "
                + as
                + " and evaluate the policy on the result, which countersign cannot do offline",
            Hints.suggest(rewrite + ", or name " + written + " in the policy's resourceRules")),
        Severity.ERROR);
  }

  /** One evaluation of one policy against one object; collects its findings. */
  private static final class Run {
    private final CompiledPolicy compiled;
    private final AdmissionPolicy policy;
    private final Path file;
    private final int line;
    private final String object;
    private final Map<String, Object> activation;
    private final List<CelAttributePattern> unknowns;
    private final List<PolicyFinding> findings;
    private final Map<String, String> variableErrors = new LinkedHashMap<>();

    Run(
        CompiledPolicy compiled,
        Path file,
        int line,
        String object,
        Map<String, Object> activation,
        List<CelAttributePattern> unknowns,
        List<PolicyFinding> findings) {
      this.compiled = compiled;
      this.policy = compiled.policy();
      this.file = file;
      this.line = line;
      this.object = object;
      this.activation = activation;
      this.unknowns = new ArrayList<>(unknowns);
      this.findings = findings;
    }

    void run() {
      if (compiled.uncompilableCondition()) {
        return; // already reported as a policy problem; cannot tell whether the policy applies
      }
      activation.put("variables", Map.of());
      for (CompiledExpression condition : compiled.matchConditions()) {
        Optional<Boolean> matches =
            evaluateBool(
                condition.program(),
                PolicyFinding.WHOLE_POLICY,
                "matchCondition '" + condition.name() + "'",
                AdmissionPolicyEvaluator::describe);
        if (!matches.orElse(false)) {
          return; // reported, or the policy does not apply to this object
        }
      }
      activation.put("variables", evaluateVariables());
      for (CompiledValidation validation : compiled.validations()) {
        validate(validation);
      }
    }

    /**
     * Kubernetes evaluates variables lazily; here eagerly, keeping errors for the validations that
     * use them.
     */
    private Map<String, Object> evaluateVariables() {
      Map<String, Object> variables = new LinkedHashMap<>();
      for (CompiledExpression variable : compiled.variables()) {
        if (variable.program() == null) {
          continue;
        }
        activation.put("variables", Map.copyOf(variables));
        try {
          Object value = eval(variable.program(), activation, unknowns);
          if (value instanceof CelUnknownSet) {
            // Unknown offline: so is every expression whose outcome depends on it.
            unknowns.add(
                CelAttributePattern.fromQualifiedIdentifier("variables." + variable.name()));
          } else {
            variables.put(variable.name(), value);
          }
        } catch (CelEvaluationException e) {
          variableErrors.put(variable.name(), describe(e));
        }
      }
      return Map.copyOf(variables);
    }

    private void validate(CompiledValidation compiledValidation) {
      Validation validation = compiledValidation.validation();
      if (compiledValidation.program() == null) {
        return; // reported once as a policy problem
      }
      Optional<Boolean> passed =
          evaluateBool(
              compiledValidation.program(),
              validation.index(),
              "expression " + quoted(validation.expression()),
              e -> explain(validation.expression(), e));
      if (!passed.orElse(true)) {
        report(validation.index(), Severity.ERROR, failureMessage(compiledValidation));
      }
    }

    /**
     * What {@code program} evaluates to; empty after reporting, at {@code index}, an evaluation
     * error (worded by {@code explain}) or a result that is not a bool.
     *
     * @param label the expression as the report names it, e.g. {@code matchCondition 'name'}
     */
    private Optional<Boolean> evaluateBool(
        Program program,
        int index,
        String label,
        Function<CelEvaluationException, String> explain) {
      Object result;
      try {
        result = eval(program, activation, unknowns);
      } catch (CelEvaluationException e) {
        report(index, errorSeverity(), label + " resulted in error: " + explain.apply(e));
        return Optional.empty();
      }
      if (result instanceof CelUnknownSet) {
        // Not an evaluation error: the cluster would decide, so failurePolicy does not apply.
        report(
            index,
            Severity.ERROR,
            Hints.append(
                label + " " + UNKNOWN_OFFLINE,
                Hints.suggest("make the object comply whatever its namespace is and holds")));
        return Optional.empty();
      }
      if (!(result instanceof Boolean value)) {
        report(index, errorSeverity(), label + " must evaluate to bool, got " + typeName(result));
        return Optional.empty();
      }
      return Optional.of(value);
    }

    /**
     * Kubernetes: messageExpression wins when it yields a non-blank string, then message, then a
     * default.
     */
    private String failureMessage(CompiledValidation compiledValidation) {
      Validation validation = compiledValidation.validation();
      if (compiledValidation.messageProgram() != null) {
        try {
          Object message = eval(compiledValidation.messageProgram(), activation, unknowns);
          if (message instanceof String s && !s.isBlank()) {
            return s.strip();
          }
        } catch (CelEvaluationException e) {
          // As in Kubernetes: fall back to message as if messageExpression were unset.
        }
      }
      return validation
          .message()
          .filter(m -> !m.isBlank())
          .orElse("failed expression: " + shown(validation.expression()));
    }

    private String explain(String expression, CelEvaluationException e) {
      for (Map.Entry<String, String> failed : variableErrors.entrySet()) {
        if (expression.contains("variables." + failed.getKey())) {
          return "variable '" + failed.getKey() + "' resulted in error: " + failed.getValue();
        }
      }
      return describe(e);
    }

    private Severity errorSeverity() {
      return policy.failOnError() ? Severity.ERROR : Severity.WARNING;
    }

    private void report(int index, Severity severity, String message) {
      findings.add(new PolicyFinding(file, line, policy.name(), index, object, message, severity));
    }
  }

  /**
   * cel-java signals evaluation errors with CelEvaluationException, but a few paths (conversions of
   * unusual values) throw unchecked exceptions; both are a failed expression, not a crash.
   */
  private static Object eval(
      Program program, Map<String, Object> activation, List<CelAttributePattern> unknowns)
      throws CelEvaluationException {
    try {
      return unknowns.isEmpty()
          ? program.eval(activation)
          : program.eval(PartialVars.of(activation, unknowns.toArray(CelAttributePattern[]::new)));
    } catch (RuntimeException e) {
      throw new CelEvaluationException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  private static CompiledPolicy compile(
      Cel cel, AdmissionPolicy policy, List<PolicyFinding> problems) {
    Compilation compilation = new Compilation(cel, policy, problems);
    boolean uncompilableCondition = false;
    List<CompiledExpression> conditions = new ArrayList<>();
    for (NamedExpression condition : policy.matchConditions()) {
      CompiledExpression compiled = compilation.named(condition, "matchCondition", SimpleType.BOOL);
      uncompilableCondition |= compiled.program() == null;
      conditions.add(compiled);
    }
    List<CompiledExpression> variables =
        policy.variables().stream().map(v -> compilation.named(v, "variable", null)).toList();
    List<CompiledValidation> validations = new ArrayList<>();
    for (Validation validation : policy.validations()) {
      Program program =
          compilation.program(
              validation.expression(),
              validation.line(),
              SimpleType.BOOL,
              "validation " + validation.index(),
              validation.index());
      Program message =
          validation
              .messageExpression()
              .map(
                  expression ->
                      compilation.program(
                          expression,
                          validation.line(),
                          SimpleType.STRING,
                          "messageExpression of validation " + validation.index(),
                          validation.index()))
              .orElse(null);
      validations.add(new CompiledValidation(validation, program, message));
    }
    return new CompiledPolicy(policy, uncompilableCondition, conditions, variables, validations);
  }

  /**
   * Compiles the expressions of one policy, recording what does not compile in {@code problems}.
   */
  private record Compilation(Cel cel, AdmissionPolicy policy, List<PolicyFinding> problems) {

    /** Compiles a named expression of the policy ({@code kind 'name'} in problems). */
    CompiledExpression named(NamedExpression expression, String kind, CelType expected) {
      return new CompiledExpression(
          expression.name(),
          program(
              expression.expression(),
              expression.line(),
              expected,
              kind + " '" + expression.name() + "'",
              PolicyFinding.WHOLE_POLICY));
    }

    /** Compiles one expression, or records a problem and returns null. */
    Program program(String expression, int line, CelType expected, String what, int index) {
      CelValidationResult result = cel.compile(expression);
      String failure;
      try {
        if (result.hasError()) {
          throw new CelValidationException(result.getSource(), result.getErrors());
        }
        CelAbstractSyntaxTree ast = result.getAst();
        CelType type = ast.getResultType();
        if (expected == null || type.equals(expected) || type.equals(SimpleType.DYN)) {
          return cel.createProgram(ast);
        }
        failure = "must evaluate to " + expected.name() + ", but evaluates to " + type.name();
      } catch (CelValidationException e) {
        failure = "does not compile: " + firstErrors(result);
      } catch (CelEvaluationException e) {
        failure = "cannot be planned: " + e.getMessage();
      }
      problems.add(
          policyProblem(policy, line, index, what + " " + quoted(expression) + " " + failure));
      return null;
    }
  }

  private static PolicyFinding policyProblem(
      AdmissionPolicy policy, int line, int index, String message) {
    return new PolicyFinding(
        policy.source(),
        line > 0 ? line : policy.line(),
        policy.name(),
        index,
        "",
        message,
        Severity.ERROR);
  }

  /** The first error only: later ones usually cascade from it (each undeclared member call). */
  private static String firstErrors(CelValidationResult result) {
    String first =
        result.getErrors().isEmpty() ? "unknown error" : result.getErrors().get(0).getMessage();
    if (first.contains("'authorizer'")) {
      first += "; authorizer checks need a cluster and are not available offline";
    }
    return first;
  }

  /**
   * {@code expression} as a finding prints it: whole up to {@value #PRINTED_EXPRESSION_CHARS}
   * characters; a longer one (a policy's expression may be of any length) as its beginning, "..."
   * and its length, so one finding stays one readable line.
   */
  private static String shown(String expression) {
    return expression.length() <= PRINTED_EXPRESSION_CHARS
        ? expression
        : beginning(expression) + "... (" + expression.length() + " characters)";
  }

  /** {@link #shown} in single quotes, the length after them. */
  private static String quoted(String expression) {
    return expression.length() <= PRINTED_EXPRESSION_CHARS
        ? "'" + expression + "'"
        : "'" + beginning(expression) + "...' (" + expression.length() + " characters)";
  }

  private static String beginning(String expression) {
    int end = PRINTED_EXPRESSION_CHARS;
    // Not half of a character outside the basic plane.
    return expression.substring(
        0, Character.isHighSurrogate(expression.charAt(end - 1)) ? end - 1 : end);
  }

  private static String describe(CelEvaluationException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    // cel-java prefixes "evaluation error at <input>:OFFSET: "; the expression is quoted already.
    return message
        .replaceFirst("^evaluation error at <input>:\\d+: ", "")
        .replaceFirst("^evaluation error: ", "");
  }

  /** CEL's name for the type of a value an expression returned. */
  private static String typeName(Object value) {
    return CEL_TYPE_NAMES.entrySet().stream()
        .filter(type -> type.getKey().isInstance(value))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(value == null ? "null" : value.getClass().getSimpleName());
  }

  private static Cel newCel() {
    CelOptions options =
        CelOptions.current()
            .enableHeterogeneousNumericComparisons(true)
            .enableOptionalSyntax(true)
            .comprehensionMaxIterations(MAX_ITERATIONS)
            .enableUnknownTracking(true)
            .build();
    CelType dynMap = MapType.create(SimpleType.STRING, SimpleType.DYN);
    return CelFactory.standardCelBuilder()
        .setOptions(options)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addCompilerLibraries(
            CelExtensions.strings(), CelExtensions.sets(options), CelExtensions.optional())
        .addRuntimeLibraries(
            CelExtensions.strings(), CelExtensions.sets(options), CelExtensions.optional())
        .addVar("object", SimpleType.DYN)
        .addVar("oldObject", SimpleType.DYN)
        .addVar("request", SimpleType.DYN)
        .addVar("params", SimpleType.DYN)
        .addVar("namespaceObject", SimpleType.DYN)
        .addVar("variables", dynMap)
        .addFunctionDeclarations(
            CelFunctionDecl.newFunctionDeclaration(
                "find",
                CelOverloadDecl.newMemberOverload(
                    "string_find_string", SimpleType.STRING, SimpleType.STRING, SimpleType.STRING)),
            CelFunctionDecl.newFunctionDeclaration(
                "findAll",
                CelOverloadDecl.newMemberOverload(
                    "string_find_all_string",
                    ListType.create(SimpleType.STRING),
                    SimpleType.STRING,
                    SimpleType.STRING),
                CelOverloadDecl.newMemberOverload(
                    "string_find_all_string_int",
                    ListType.create(SimpleType.STRING),
                    SimpleType.STRING,
                    SimpleType.STRING,
                    SimpleType.INT)))
        .addFunctionBindings(
            CelFunctionBinding.from(
                "string_find_string", String.class, String.class, AdmissionPolicyEvaluator::find),
            CelFunctionBinding.from(
                "string_find_all_string",
                String.class,
                String.class,
                (text, regex) -> findAll(text, regex, -1)),
            CelFunctionBinding.from(
                "string_find_all_string_int",
                List.of(String.class, String.class, Long.class),
                args -> findAll((String) args[0], (String) args[1], (Long) args[2])))
        .build();
  }

  /**
   * RE2J, not java.util.regex: Kubernetes compiles with Go's regexp (RE2), and java.util.regex
   * differs in syntax and semantics ({@code $} also matches before a final newline) and backtracks
   * recursively, so a long value under a common pattern overflowed the stack.
   */
  private static Pattern pattern(String regex) throws CelEvaluationException {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new CelEvaluationException(
          "invalid regular expression '" + regex + "': " + e.getDescription(), e);
    }
  }

  /** Kubernetes' {@code find}: Go's {@code FindString}, the leftmost match or {@code ""}. */
  private static String find(String text, String regex) throws CelEvaluationException {
    Matcher matcher = pattern(regex).matcher(text);
    return matcher.find() ? matcher.group() : "";
  }

  /**
   * Kubernetes' {@code findAll}: Go's {@code FindAllString}, at most {@code limit} matches (all
   * when negative). Go's loop, not {@link Matcher#find()}'s: an empty match that abuts the previous
   * match is skipped (Java keeps it), and an empty match moves on by one code point, not one char.
   */
  private static List<String> findAll(String text, String regex, long limit)
      throws CelEvaluationException {
    Matcher matcher = pattern(regex).matcher(text);
    List<String> matches = new ArrayList<>();
    int position = 0;
    int previousEnd = -1;
    while ((limit < 0 || matches.size() < limit)
        && position <= text.length()
        && matcher.find(position)) {
      boolean accept = true;
      if (matcher.end() == position) {
        accept = matcher.start() != previousEnd;
        position =
            position < text.length()
                ? position + Character.charCount(text.codePointAt(position))
                : position + 1;
      } else {
        position = matcher.end();
      }
      previousEnd = matcher.end();
      if (accept) {
        matches.add(matcher.group());
      }
    }
    return matches;
  }

  private record CompiledExpression(String name, Program program) {}

  private record CompiledValidation(
      Validation validation, Program program, Program messageProgram) {}

  private record CompiledPolicy(
      AdmissionPolicy policy,
      boolean uncompilableCondition,
      List<CompiledExpression> matchConditions,
      List<CompiledExpression> variables,
      List<CompiledValidation> validations) {

    /**
     * Not excluded, and the objectSelector matches. Exclusions count only as written: whether the
     * cluster serves a version an exclusion names, and so excludes its equivalents, is unknown.
     */
    boolean selects(ObjectCoordinates object) {
      return policy.excludeResourceRules().stream().noneMatch(object::matches)
          && policy.objectSelector().matches(object.labels());
    }

    /** A resource rule covers the object in its own group and version. */
    boolean matchesAsWritten(ObjectCoordinates object) {
      return policy.resourceRules().stream().anyMatch(object::matches);
    }

    /**
     * With {@code matchPolicy: Equivalent}, the API version under which a resource rule covers the
     * object's resource when none covers the object as written.
     */
    Optional<String> matchesOnlyAs(ObjectCoordinates object) {
      if (policy.matchPolicy() != AdmissionPolicy.MatchPolicy.EQUIVALENT) {
        return Optional.empty();
      }
      return policy.resourceRules().stream()
          .map(object::equivalentMatch)
          .flatMap(Optional::stream)
          .findFirst();
    }
  }

  /** Group, version, kind, resource, name and labels of one object, as admission sees them. */
  private record ObjectCoordinates(
      String group,
      String version,
      String kind,
      String resource,
      String name,
      String namespace,
      Map<String, String> labels) {

    static ObjectCoordinates of(Map<String, Object> object) {
      ManifestDocument document = new ManifestDocument(object);
      String apiVersion = document.apiVersion();
      int slash = apiVersion.indexOf('/');
      String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
      Map<String, String> labels = new LinkedHashMap<>();
      if (document.metadata().get("labels") instanceof Map<?, ?> map) {
        // As CEL sees them: a label set to null is the empty string (CelValues).
        map.forEach(
            (k, v) -> labels.put(String.valueOf(k), String.valueOf(CelValues.stringMapEntry(v))));
      }
      return new ObjectCoordinates(
          document.group(),
          version,
          document.kind(),
          ResourceNames.pluralOf(document.kind()),
          document.name(),
          document.namespace().orElse(""),
          labels);
    }

    boolean matches(AdmissionPolicy.ResourceRule rule) {
      return rule.matches(group, version, resource, name);
    }

    Optional<String> equivalentMatch(AdmissionPolicy.ResourceRule rule) {
      return rule.equivalentMatch(group, version, resource, name);
    }

    String apiVersion() {
      return group.isEmpty() ? version : group + "/" + version;
    }

    /**
     * What the API server knows about a namespaced object and this manifest does not: its Namespace
     * ({@code namespaceObject}, null only for cluster-scoped objects), and, when the manifest names
     * no namespace, the one it is applied to ({@code request.namespace}, {@code
     * object.metadata.namespace}). An outcome that depends on these is unknown, not a pass. Kinds
     * countersign does not know are taken as namespaced.
     */
    List<CelAttributePattern> unknownOffline() {
      if (KubernetesKinds.isClusterScoped(kind)) {
        return List.of();
      }
      List<CelAttributePattern> unknown = new ArrayList<>();
      unknown.add(CelAttributePattern.fromQualifiedIdentifier("namespaceObject"));
      if (namespace.isEmpty()) {
        unknown.add(CelAttributePattern.fromQualifiedIdentifier("request.namespace"));
        unknown.add(CelAttributePattern.fromQualifiedIdentifier("object.metadata.namespace"));
      }
      return List.copyOf(unknown);
    }

    String describe() {
      return kind + "/" + (namespace.isEmpty() ? "" : namespace + "/") + name;
    }

    Map<String, Object> request() {
      Map<String, Object> request = new LinkedHashMap<>();
      request.put("uid", "countersign-offline-check");
      request.put("kind", Map.of("group", group, "version", version, "kind", kind));
      request.put("resource", Map.of("group", group, "version", version, "resource", resource));
      request.put("requestKind", Map.of("group", group, "version", version, "kind", kind));
      request.put(
          "requestResource", Map.of("group", group, "version", version, "resource", resource));
      request.put("name", name);
      request.put("namespace", namespace);
      request.put("operation", "CREATE");
      request.put("userInfo", Map.of("username", "countersign"));
      request.put("dryRun", true);
      return request;
    }
  }
}
