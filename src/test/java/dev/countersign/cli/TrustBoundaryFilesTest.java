package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The file-set half of the trust boundary (issue 9, findings 1, 2 and 8), end to end through the
 * Action entry: a bare origin, clones as workspaces, keyless signing against the loopback Sigstore
 * stack, and {@code check} run as a pull request's gate on the same trees.
 *
 * <p>Invariants: {@code run} and {@code check} see the same set of manifests (awkward names
 * included) and {@code verify signed/} covers what {@code run} wrote; no link under a signed or
 * unsigned directory is followed, so nothing outside the work tree is read, written or created, and
 * both commands refuse such trees with exit 6 and an annotation on the link; oversized files and
 * unusable names are refused the same way before anything is loaded; {@code kind: List} is refused
 * by both.
 */
@RequiresSigstoreStack
class TrustBoundaryFilesTest {

  private static final String TOKEN = "ghs_trustBoundaryToken0123456789abcdef";
  private static final String EVENTS = "/action/events/";

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;
  private Path outside;
  private String baseCommit;

  TrustBoundaryFilesTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void repository() throws Exception {
    outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("victim.yaml"), "precious: true\n");
    Files.writeString(outside.resolve("passwd"), "root:x:0:0:root:/root:/bin/bash\n");
    git = new GitFixture(tmp.resolve("git"));
    Map<String, String> files = new LinkedHashMap<>();
    files.put(
        ".countersign/policy.yaml",
        String.join(
            "\n",
            "apiVersion: countersign.dev/v1alpha1",
            "kind: TrustPolicy",
            "signers:",
            "  - issuer: " + stack.identityIssuer(),
            "    subject: " + stack.identitySan(),
            "directories:",
            "  - unsigned: unsigned",
            "    signed: signed",
            "governance:",
            "  policies: [policies]",
            ""));
    files.put(
        "policies/deny-allow-all-ingress.yaml",
        resource("/governance/policies/deny-allow-all-ingress.yaml"));
    files.put("README.md", "not a manifest\n");
    baseCommit = git.commitToOrigin("main", files, Set.of(), "countersign set-up");
  }

  // --- 1. one set of files --------------------------------------------------------------------

  @Test
  void awkwardNames_runAndCheckSeeTheSameSet_andVerifyCoversEverythingRunWrote() throws Exception {
    List<String> names =
        List.of(
            ".np.yaml",
            ".hidden/np.yaml",
            "np.YAML",
            "np.Yml",
            "café/ñandú.yaml",
            "with space/a b.yml",
            "日本語.yaml");
    Map<String, String> files = new TreeMap<>();
    for (int i = 0; i < names.size(); i++) {
      files.put("unsigned/" + names.get(i), configMap("cm-" + i, "v" + i));
    }
    files.put("unsigned/notes.md", "not a manifest either\n");
    // The probe is part of the base branch's rules, the manifests come with the pull request.
    baseCommit =
        git.commitToOrigin(
            "main", Map.of("policies/probe.yaml", PROBE_EVERY_CONFIGMAP), Set.of(), "probe");
    git.commitToOrigin("main", files, Set.of(), "awkward names");
    Set<String> expected =
        names.stream().map(n -> "unsigned/" + n).collect(Collectors.toCollection(TreeSet::new));

    // The gate, as on the pull request: one probe warning per manifest it looked at.
    Path pr = git.clone("pr", 0, true);
    CliRun check = check(pr, "json");
    assertThat(check.exitCode()).as(check.all()).isZero();
    JsonNode report = new ObjectMapper().readTree(check.out());
    Set<String> checked = new TreeSet<>();
    report.get("findings").forEach(f -> checked.add(f.get("file").asText()));
    assertThat(checked).isEqualTo(expected);
    assertThat(report.get("summary").get("unsignedFiles").asInt()).isEqualTo(names.size());

    // The pipeline after merge signs exactly that set.
    CliRun run = run(git.clone("ws", 1, true));
    assertThat(run.exitCode()).as(run.all()).isZero();
    Set<String> signed = new TreeSet<>(outputLines("signed-files"));
    assertThat(signed)
        .isEqualTo(
            expected.stream()
                .map(p -> "signed/" + p.substring("unsigned/".length()))
                .collect(Collectors.toCollection(TreeSet::new)));
    assertThat(git.originFiles("main").keySet())
        .contains("unsigned/notes.md")
        .noneMatch(p -> p.startsWith("unsigned/") && !p.equals("unsigned/notes.md"));

    // verify signed/ and the gate on the result both cover every file run wrote.
    Path after = git.clone("after", 0, true);
    CliRun verify =
        CliRun.run(
            Map.of(),
            "verify",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--certificate-identity",
            stack.identitySan(),
            "--certificate-oidc-issuer",
            stack.identityIssuer(),
            after.resolve("signed").toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
    assertThat(verify.out()).contains(names.size() + " verified, 0 rejected");
    CliRun gateAfter = check(after, "json");
    assertThat(gateAfter.exitCode()).as(gateAfter.all()).isZero();
    JsonNode summary = new ObjectMapper().readTree(gateAfter.out()).get("summary");
    assertThat(summary.get("signedFiles").asInt()).isEqualTo(names.size());
    assertThat(summary.get("verifiedDocuments").asInt()).isEqualTo(names.size());
  }

  @Test
  void hiddenAndUpperCaseManifestsViolatingGovernance_failTheGate_theFilesRunWouldSign()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/.hidden/allow-all.yaml", allowAllIngress("hidden"),
            "unsigned/.allow-all.yaml", allowAllIngress("dotfile"),
            "unsigned/allow-all.YAML", allowAllIngress("upper")),
        Set.of(),
        "sneak past the gate");

    CliRun check = check(git.clone("pr", 0, true), "text");

    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.REJECTED.code());
    for (String file :
        List.of(
            "unsigned/.hidden/allow-all.yaml",
            "unsigned/.allow-all.yaml",
            "unsigned/allow-all.YAML")) {
      assertThat(check.out())
          .contains("::error file=" + file + ",line=1,title=countersign governance::");
    }
    // The same three are what run would sign (dry run: nothing signed or pushed).
    String head = git.originHead("main");
    CliRun plan = run(git.clone("ws", 1, true), Map.of("INPUT_DRY_RUN", "true"));
    assertThat(plan.exitCode()).as(plan.all()).isZero();
    assertThat(plan.out())
        .contains(
            "would sign unsigned/.hidden/allow-all.yaml -> signed/.hidden/allow-all.yaml",
            "would sign unsigned/.allow-all.yaml -> signed/.allow-all.yaml",
            "would sign unsigned/allow-all.YAML -> signed/allow-all.YAML");
    assertThat(git.originHead("main")).isEqualTo(head);
  }

  // --- 2. writes stay inside ------------------------------------------------------------------

  @ParameterizedTest(name = "{0} link")
  @ValueSource(strings = {"relative", "absolute"})
  void signedSubdirectorySymlinkedOutsideTheRepository_refusedByRunAndCheck_nothingOutsideWritten(
      String kind) throws Exception {
    // From <ws>/signed/team, ../../../outside is tmp/outside (the workspace is tmp/git/<name>).
    String target = kind.equals("relative") ? "../../../outside" : outside.toString();
    git.commitToOrigin(
        "main", Map.of("unsigned/team/victim.yaml", configMap("team", "x")), Set.of(), "team");
    git.commitSymlinkToOrigin("main", "signed/team", target);

    assertRefusedByRunAndCheck("signed/team", "is a symbolic link");
  }

  @Test
  void signedDotFileSymlinkedToAFileOutside_refusedByRunAndCheck_theFileIsNotOverwritten()
      throws Exception {
    git.commitToOrigin("main", Map.of("unsigned/.x.yaml", configMap("x", "1")), Set.of(), "x");
    git.commitSymlinkToOrigin("main", "signed/.x.yaml", outside.resolve("victim.yaml").toString());

    assertRefusedByRunAndCheck("signed/.x.yaml", "is a symbolic link");
  }

  @Test
  void unsignedFileSymlinkedToAPasswdLikeFile_refusedByRunAndCheck_itsContentIsNeverSignedOrShown()
      throws Exception {
    git.commitSymlinkToOrigin("main", "unsigned/passwd.yaml", outside.resolve("passwd").toString());

    CliRun run = assertRefusedByRunAndCheck("unsigned/passwd.yaml", "is a symbolic link");
    assertThat(run.all()).doesNotContain("root:x:0:0");
    assertThat(stack.stats().certificates()).isZero();
  }

  @ParameterizedTest(name = "{0} directory")
  @ValueSource(strings = {"unsigned", "signed"})
  void managedDirectoryItselfASymlink_refusedByRunAndCheck(String directory) throws Exception {
    Files.writeString(outside.resolve("planted.yaml"), configMap("planted", "1"));
    if (directory.equals("signed")) {
      git.commitToOrigin("main", Map.of("unsigned/a.yaml", configMap("a", "1")), Set.of(), "a");
    }
    git.commitSymlinkToOrigin("main", directory, outside.toString());

    assertRefusedByRunAndCheck(directory, "is a symbolic link");
  }

  @Test
  void signedDirectoryMadeASymlinkInTheWorkTreeByAnEarlierStep_runRefusesToWriteThroughIt()
      throws Exception {
    git.commitToOrigin("main", Map.of("unsigned/a.yaml", configMap("a", "1")), Set.of(), "a");
    String before = git.originHead("main");
    Path ws = git.clone("ws", 1, true);
    Files.createSymbolicLink(ws.resolve("signed"), outside);
    Map<String, String> outsideBefore = snapshot(outside);

    CliRun run = run(ws);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains("::error file=signed,title=invalid manifest::signed: is a symbolic link");
    assertThat(snapshot(outside)).isEqualTo(outsideBefore);
    assertThat(ws.resolve("unsigned/a.yaml")).exists();
    assertThat(git.originHead("main")).isEqualTo(before);
  }

  @Test
  void benignTreeWithNestedDirectories_control_runAndCheckPass() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/team/a.yaml",
            configMap("a", "1"),
            "unsigned/team/deep/b.yml",
            configMap("b", "2")),
        Set.of(),
        "benign");

    assertThat(check(git.clone("pr", 0, true), "text").exitCode()).isZero();
    CliRun run = run(git.clone("ws", 1, true));
    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles("main"))
        .containsKeys("signed/team/a.yaml", "signed/team/deep/b.yml");
    assertThat(snapshot(outside)).containsOnlyKeys("", "passwd", "victim.yaml");
  }

  @Test
  void fileWhereTheSignedDirectoryOfAnUnsignedManifestMustBe_refusedByRunAndCheck_beforeSigning()
      throws Exception {
    // A pull request can commit both: git holds signed/team as a file beside unsigned/team/.
    git.commitToOrigin(
        "main",
        Map.of("unsigned/team/app.yaml", configMap("app", "1"), "signed/team", "notes\n"),
        Set.of(),
        "team");

    assertRefusedByRunAndCheck(
        "signed/team",
        "is a file, but signed/team/app.yaml, the signed file of unsigned/team/app.yaml, is to be"
            + " written below it");
  }

  @Test
  void directoryWhereTheSignedFileOfAnUnsignedManifestMustBe_refusedByRunAndCheck_beforeSigning()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of("unsigned/app.yaml", configMap("app", "1"), "signed/app.yaml/README", "notes\n"),
        Set.of(),
        "app");

    assertRefusedByRunAndCheck(
        "signed/app.yaml",
        "is a directory, but the signed file of unsigned/app.yaml is to be written there");
  }

  @Test
  void filesAndDirectoriesBesideTheSignedFiles_control_runAndCheckPass_andRunKeepsThem()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/team/app.yaml",
            configMap("app", "1"),
            "unsigned/web.yaml",
            configMap("web", "2"),
            "signed/team/README",
            "notes\n",
            "signed/web.yml/README",
            "not the target: web.yaml is\n"),
        Set.of(),
        "beside");

    assertThat(check(git.clone("pr", 0, true), "text").exitCode()).isZero();
    CliRun run = run(git.clone("ws", 1, true));
    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles("main").keySet())
        .contains(
            "signed/team/app.yaml",
            "signed/web.yaml",
            "signed/team/README",
            "signed/web.yml/README")
        .doesNotContain("unsigned/team/app.yaml", "unsigned/web.yaml");
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {".git ", ".GIT.", "git~1", "gitx"})
  void branchMovedToACommitHoldingANameGitTakesForDotGit_runExits6NamingIt_nothingMoved(String name)
      throws Exception {
    // The checkout is older than main, so the run moves it to main's tip, which jgit (as git with
    // core.protectNTFS) refuses to write for every name but the control's.
    git.commitToOrigin("main", Map.of("unsigned/a.yaml", configMap("a", "1")), Set.of(), "a");
    Path ws = git.clone("ws", 1, true);
    String started = GitFixture.headOf(ws);
    git.commitUnderRawNameToOrigin("main", "docs", name, "notes.md", "notes\n");
    String before = git.originHead("main");

    CliRun run = run(ws);

    if (name.equals("gitx")) {
      assertThat(run.exitCode()).as(run.all()).isZero();
      assertThat(git.originFiles("main")).containsKeys("signed/a.yaml", "docs/gitx/notes.md");
      return;
    }
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains(
            "::error file=docs/"
                + name
                + "/notes.md,title=invalid manifest::docs/"
                + name
                + "/notes.md: has a name git refuses to write to a work tree");
    assertThat(run.all()).doesNotContain("bug in countersign");
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(GitFixture.headOf(ws)).isEqualTo(started);
    assertThat(ws.resolve("unsigned/a.yaml")).exists();
    assertThat(ws.resolve("docs")).doesNotExist();
  }

  // --- 8. bounded and classified inputs -------------------------------------------------------

  @Test
  void hugeBlobAndTwelveLargeBlobs_refusedBeforeLoading_byRunAndCheck_eachNamed() throws Exception {
    Path pr = git.clone("pr", 0, true);
    byte[] big = new byte[45 * 1024 * 1024];
    java.util.Arrays.fill(big, (byte) '#');
    byte[] huge = new byte[50 * 1024 * 1024];
    java.util.Arrays.fill(huge, (byte) '#');
    Map<String, byte[]> blobs = new TreeMap<>();
    blobs.put("unsigned/huge.yaml", huge);
    for (int i = 1; i <= 12; i++) {
      blobs.put(String.format("unsigned/big-%02d.yaml", i), big);
    }
    git.commitBytesToOrigin("main", blobs, "large files");
    String before = git.originHead("main");
    stack.resetStats();

    // run reads only commits: a clone without checkout spares writing 590 MB.
    CliRun run = run(git.clone("ws", 1, true, true));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/huge.yaml,title=invalid manifest::unsigned/huge.yaml: is"
                + " 52428800 bytes, larger than the limit of 1048576 bytes for one manifest file");
    for (int i = 1; i <= 12; i++) {
      assertThat(run.out())
          .contains(
              String.format(
                  "::error file=unsigned/big-%02d.yaml,title=invalid manifest::"
                      + "unsigned/big-%02d.yaml: is 47185920 bytes",
                  i, i));
    }
    assertThat(run.all()).doesNotContain("LargeObject").doesNotContain("OutOfMemory");
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(stack.stats().certificates()).isZero();

    // check reads the work tree: the same files, as sparse files of the same sizes.
    for (Map.Entry<String, byte[]> blob : blobs.entrySet()) {
      Files.createDirectories(pr.resolve(blob.getKey()).getParent());
      try (var file = new java.io.RandomAccessFile(pr.resolve(blob.getKey()).toFile(), "rw")) {
        file.setLength(blob.getValue().length);
      }
    }
    CliRun check = check(pr, "text");
    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(check.out())
        .contains(
            "::error file=unsigned/huge.yaml,title=invalid manifest::unsigned/huge.yaml: is"
                + " 52428800 bytes");
    for (int i = 1; i <= 12; i++) {
      assertThat(check.out()).contains(String.format("::error file=unsigned/big-%02d.yaml,", i));
    }
  }

  @Test
  void fileNamesWithBackslashNewlineAndEscape_refusedWithAnEscapedAnnotation_notACrash()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/back\\slash.yaml", configMap("b", "1"),
            "unsigned/x\n::warning::owned.yaml", configMap("n", "1"),
            "unsigned/esc\u001b[31m.yaml", configMap("e", "1")),
        Set.of(),
        "names");
    String before = git.originHead("main");

    Path ws = git.clone("ws", 0, true);
    for (CliRun refused : List.of(run(ws), check(ws, "text"))) {
      assertThat(refused.exitCode()).as(refused.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
      assertThat(refused.out())
          .contains(
              "::error file=unsigned/back\\\\slash.yaml,title=invalid"
                  + " manifest::unsigned/back\\\\slash.yaml: has a backslash in its name")
          .contains(
              "::error file=unsigned/x\\n"
                  + "%3A%3Awarning%3A%3Aowned.yaml,title=invalid manifest::unsigned/x\\n"
                  + "::warning::owned.yaml: has a control character (U+000A) in its name")
          .contains("::error file=unsigned/esc\\x1b[31m.yaml,");
      assertThat(refused.all().lines()).noneMatch(line -> line.strip().startsWith("::warning"));
      assertThat(refused.all()).doesNotContain("\u001b");
    }
    assertThat(git.originHead("main")).isEqualTo(before);
  }

  @Test
  void kindList_refusedByRunAndByCheck() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/list.yaml",
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: List",
                "items:",
                "  - apiVersion: v1",
                "    kind: ConfigMap",
                "    metadata:",
                "      name: inner",
                "")),
        Set.of(),
        "a list");
    String before = git.originHead("main");
    Path ws = git.clone("ws", 0, true);

    CliRun run = run(ws);
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/list.yaml,line=1,title=invalid manifest::unsigned/list.yaml:1:"
                + " is a List holding 1 objects, but countersign signs one object per document");
    assertThat(git.originHead("main")).isEqualTo(before);

    CliRun check = check(ws, "text");
    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(check.out())
        .contains("::error file=unsigned/list.yaml,line=1,")
        .contains("is a List holding 1 objects, but countersign signs one object per document");
  }

  // --- helpers --------------------------------------------------------------------------------

  /**
   * Runs {@code run} on a fresh clone and {@code check} on another, and asserts both refuse with
   * exit 6 and an annotation on {@code path}, while nothing outside the work tree changed, the
   * workspace's unsigned directory is as it was, and origin did not move.
   */
  private CliRun assertRefusedByRunAndCheck(String path, String why) throws Exception {
    String before = git.originHead("main");
    Map<String, String> outsideBefore = snapshot(outside);
    Set<String> tmpBefore = topLevel(tmp);
    stack.resetStats();
    Path ws = git.clone("ws", 1, true);
    Map<String, String> unsignedBefore = snapshot(ws.resolve("unsigned"));

    CliRun run = run(ws);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains("::error file=" + path + ",title=invalid manifest::" + path + ": " + why);
    assertThat(snapshot(outside)).isEqualTo(outsideBefore);
    assertThat(snapshot(ws.resolve("unsigned"))).isEqualTo(unsignedBefore);
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(stack.stats().certificates()).isZero();

    CliRun check = check(git.clone("pr", 0, true), "text");
    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(check.out())
        .contains("::error file=" + path + ",title=invalid manifest::" + path + ": " + why);
    assertThat(snapshot(outside)).isEqualTo(outsideBefore);
    assertThat(topLevel(tmp)).containsAll(tmpBefore);
    assertThat(topLevel(tmp))
        .allMatch(
            name ->
                tmpBefore.contains(name)
                    || name.startsWith("event")
                    || name.equals("output")
                    || name.equals("summary"));
    return run;
  }

  private CliRun run(Path ws) throws IOException {
    return run(ws, Map.of());
  }

  private CliRun run(Path ws, Map<String, String> extra) throws IOException {
    Map<String, String> env =
        ActionTestEnv.of(
            stack,
            tmp,
            ws,
            "pull_request",
            ActionTestEnv.mergedPullRequestEvent(),
            TOKEN,
            "output");
    env.put("INPUT_COMMAND", "run");
    env.putAll(extra);
    return CliRun.run(env, "action");
  }

  private CliRun check(Path ws, String output) throws IOException {
    Map<String, String> env =
        ActionTestEnv.runner(
            stack,
            tmp,
            ws,
            "pull_request",
            openedPullRequestEvent(GitFixture.headOf(ws)),
            "output");
    env.put("INPUT_COMMAND", "check");
    env.put("INPUT_OUTPUT", output);
    return CliRun.run(env, "action");
  }

  /**
   * An opened pull request into this origin's main, based on the set-up commit, whose head is
   * {@code head}.
   */
  private String openedPullRequestEvent(String head) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode payload =
        (ObjectNode) json.readTree(resource(EVENTS + "pull_request.opened.octokit.json"));
    ObjectNode base = (ObjectNode) payload.get("pull_request").get("base");
    base.put("ref", "main");
    base.put("sha", baseCommit);
    ((ObjectNode) payload.get("pull_request").get("head")).put("sha", head);
    return json.writeValueAsString(payload);
  }

  private List<String> outputLines(String name) throws IOException {
    String outputs = Files.readString(tmp.resolve("output"));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(name + "<<(ghadelimiter_[^\\n]+)\\n").matcher(outputs);
    assertThat(m.find()).as(outputs).isTrue();
    int start = m.end();
    String body = outputs.substring(start, outputs.indexOf("\n" + m.group(1), start - 1) + 1);
    return body.lines().toList();
  }

  /**
   * Every entry below {@code dir} as relative path to content ("dir", "link -> target" or the bytes
   * as text), read without following any link; empty when {@code dir} does not exist.
   */
  private static Map<String, String> snapshot(Path dir) throws IOException {
    SortedMap<String, String> entries = new TreeMap<>();
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return entries;
    }
    if (Files.isSymbolicLink(dir)) {
      entries.put("", "link -> " + Files.readSymbolicLink(dir));
      return entries;
    }
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attributes) {
            entries.put(dir.relativize(d).toString(), "dir");
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            entries.put(
                dir.relativize(file).toString(),
                attributes.isSymbolicLink()
                    ? "link -> " + Files.readSymbolicLink(file)
                    : Files.readString(file, StandardCharsets.ISO_8859_1));
            return FileVisitResult.CONTINUE;
          }
        });
    return entries;
  }

  private static Set<String> topLevel(Path dir) throws IOException {
    try (var list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = TrustBoundaryFilesTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String configMap(String name, String value) {
    return ActionPipelineTest.configMap(name, value);
  }

  private static String allowAllIngress(String name) {
    return String.join(
        "\n",
        "apiVersion: networking.k8s.io/v1",
        "kind: NetworkPolicy",
        "metadata:",
        "  name: " + name,
        "  namespace: shop",
        "spec:",
        "  podSelector: {}",
        "  ingress:",
        "    - {}",
        "");
  }

  /**
   * A governance policy that warns once per ConfigMap document, so the gate names every file it
   * read.
   */
  private static final String PROBE_EVERY_CONFIGMAP =
      String.join(
          "\n",
          "apiVersion: admissionregistration.k8s.io/v1",
          "kind: ValidatingAdmissionPolicy",
          "metadata:",
          "  name: probe",
          "spec:",
          "  failurePolicy: Ignore",
          "  matchConstraints:",
          "    resourceRules:",
          "    - apiGroups: [\"\"]",
          "      apiVersions: [\"v1\"]",
          "      operations: [\"CREATE\"]",
          "      resources: [\"configmaps\"]",
          "  validations:",
          "  - expression: \"object.data.probe == 'x'\"",
          "");
}
