package dev.countersign.pipeline;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.CommitFacts;
import dev.countersign.git.CommitMessage;
import dev.countersign.git.CommitRequest;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.PushOutcome;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * The heart of {@code countersign run}: makes the branch's unsigned directories empty by signing
 * every manifest in them ({@link ManifestTree} decides which files those are, as for {@code check})
 * and moving it to the signed directory, in one commit, pushed to the branch.
 *
 * <p>Level-triggered: it looks at the whole tree, not at what a pull request changed, so a run that
 * was cancelled or lost a race is healed by the next one, and a second run is a no-op. When the
 * push loses a race (the branch moved), it fetches the fresh branch, recomputes the change set from
 * that tree (signing only manifests it has not signed yet, so nothing another commit changed is
 * lost) and tries again, up to {@link ReconcileOptions#pushAttempts()} times with jittered
 * exponential backoff.
 *
 * <p>Guarantees: if signing fails, nothing is written, committed or pushed; the work tree is
 * touched only after every manifest is signed. A path it would delete or write that holds work a
 * step before it left uncommitted stops it before anything is signed. If the head commit it starts
 * from is provably countersign's own ({@link #ownRun}), it does nothing, so a push made with a
 * token that triggers workflows cannot loop; any other head, whatever its message says, gets the
 * full run.
 *
 * <p>It starts from HEAD, which must be a commit of the branch (actions/checkout leaves exactly
 * that for the events {@code RunTrigger} accepts): if HEAD is behind, the first push is rejected
 * and the job recomputes from the fresh branch; if HEAD holds commits the branch lacks, they would
 * be pushed too, so runs from arbitrary checkouts set {@link ReconcileOptions#startFromRemote()}.
 *
 * @param tree which files are manifests and which entries are refused, with its size limit
 */
public record ReconcileJob(
    GitWorkspace workspace,
    SigningStep signer,
    Progress progress,
    Clock clock,
    Sleeper sleeper,
    RandomGenerator random,
    ReconcileOptions options,
    ManifestTree tree) {

  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** The manifests of commits in {@link #workspace}, as {@link #tree} decides. */
  private CommitManifests manifests() {
    return new CommitManifests(workspace, tree);
  }

  /** One manifest to move: source and target paths and what the base commit holds. */
  private record Move(
      String source, String target, byte[] unsigned, Optional<byte[]> existingSigned) {}

  public ReconcileResult run() {
    Instant started = clock.instant();
    String head = workspace.headCommitId();
    Optional<String> ownRun = ownRun(head);
    if (ownRun.isPresent()) {
      String reason =
          "the head commit "
              + abbreviate(head)
              + " was made by countersign ("
              + CommitMessage.MARKER_TRAILER
              + ": "
              + ownRun.get()
              + "), nothing to do";
      progress.info("No-op: " + reason);
      return ReconcileResult.noop(reason, 0);
    }

    String base = head;
    if (options.startFromRemote() && !options.dryRun()) {
      base = workspace.fetch(options.remote(), options.branch());
      workspace.resetTo(base);
      progress.info(
          "Starting from " + options.branch() + " at " + abbreviate(base) + " on the remote");
    }
    // Signatures made in earlier attempts, so a retry signs only what changed.
    Map<String, SigningStep.Result> signedBefore = new HashMap<>();
    for (int attempt = 1; ; attempt++) {
      List<Move> moves = plan(base);
      if (moves.isEmpty()) {
        String reason =
            "no manifests under "
                + describeSources()
                + " at "
                + abbreviate(base)
                + (attempt > 1 ? " (another run signed them first)" : "");
        progress.info("No-op: " + reason);
        return ReconcileResult.noop(reason, attempt - 1);
      }
      if (options.dryRun()) {
        return dryRun(moves, base);
      }

      refuseToOverwriteUncommittedWork(base, moves);
      SortedMap<String, SigningStep.Result> results = sign(moves, signedBefore);
      refuseOversizedOutput(moves, results);
      ChangeSet.Builder changes = ChangeSet.builder();
      List<String> written = new ArrayList<>();
      List<String> unchanged = new ArrayList<>();
      for (Move move : moves) {
        SigningStep.Result result = results.get(move.target());
        if (result instanceof SigningStep.Written output
            && !move.existingSigned().map(b -> Arrays.equals(b, output.bytes())).orElse(false)) {
          changes.write(move.target(), output.bytes());
          written.add(move.target());
        } else {
          unchanged.add(move.target());
        }
        changes.delete(move.source());
      }

      String commit = workspace.commit(changes.build(), commitRequest(moves, written));
      progress.info(
          "Committed "
              + abbreviate(commit)
              + ": "
              + written.size()
              + " signed, "
              + unchanged.size()
              + " already signed"
              + (options.push() ? "; pushing to " + options.branch() : ""));
      if (!options.push()) {
        return new ReconcileResult(
            ReconcileResult.Outcome.COMMITTED,
            sorted(written),
            sorted(unchanged),
            Optional.of(commit),
            "committed locally; not pushed (--no-push)",
            attempt);
      }

      PushOutcome outcome = workspace.push(options.remote(), options.branch());
      if (outcome instanceof PushOutcome.Pushed pushed) {
        // The commit on the branch: the local one, or GitHub's when it was made through the API.
        progress.info(
            "Pushed "
                + abbreviate(pushed.commitId())
                + " to "
                + options.branch()
                + " (attempt "
                + attempt
                + ", "
                + Duration.between(started, clock.instant()).toMillis()
                + " ms)");
        return new ReconcileResult(
            ReconcileResult.Outcome.PUSHED,
            sorted(written),
            sorted(unchanged),
            Optional.of(pushed.commitId()),
            "pushed to " + options.branch(),
            attempt);
      }

      String fresh = workspace.fetch(options.remote(), options.branch());
      if (outcome instanceof PushOutcome.Refused refused && fresh.equals(base)) {
        // The branch did not move, so this is the remote's policy (e.g. a protected branch),
        // not a lost race; retrying cannot help. The commit stays at HEAD for a pull request.
        progress.warning(
            "The remote refused the push to " + options.branch() + ": " + refused.describe());
        return new ReconcileResult(
            ReconcileResult.Outcome.REFUSED,
            sorted(written),
            sorted(unchanged),
            Optional.of(commit),
            refused.describe(),
            attempt);
      }
      String why =
          outcome instanceof PushOutcome.Rejected rejected
              ? rejected.status() + (rejected.message().isBlank() ? "" : " " + rejected.message())
              : "refused while the branch moved: " + ((PushOutcome.Refused) outcome).describe();
      if (attempt >= options.pushAttempts()) {
        throw new RemoteProblem(
            "The push to "
                + options.branch()
                + " was rejected "
                + attempt
                + " times (last: "
                + why
                + ") while reconciling "
                + describeSources(),
            "perhaps you should raise push_attempts or put the workflow in a concurrency group;"
                + " the next run will pick up the remaining manifests");
      }
      Duration delay = backoff(attempt);
      progress.info(
          "Push rejected ("
              + why
              + "); the branch moved to "
              + abbreviate(fresh)
              + ", recomputing in "
              + delay.toMillis()
              + " ms");
      pause(delay);
      workspace.resetTo(fresh);
      base = fresh;
    }
  }

  /**
   * What to sign at {@code commit}: every manifest of the unsigned directories. Both sides of every
   * pair are listed through {@link CommitManifests} first, so a link, an unusable name or an
   * oversized file in an unsigned or a signed directory, or a file or directory where a signed file
   * is to be written, stops the run before anything is loaded, signed or written.
   */
  private List<Move> plan(String commit) {
    List<Move> moves = new ArrayList<>();
    List<InputProblem> problems = new ArrayList<>();
    for (DirPair pair : options.dirs()) {
      List<String> sources = List.of();
      Set<String> signed = Set.of();
      try {
        sources = manifests().paths(commit, pair.from());
      } catch (InputProblem problem) {
        problems.addAll(problem.all());
      }
      try {
        signed = new HashSet<>(manifests().paths(commit, pair.to()));
      } catch (InputProblem problem) {
        problems.addAll(problem.all());
      }
      if (problems.isEmpty()) {
        // Before anything is signed: the commit would fail on it only after the log entries.
        Map<String, String> sourceByTarget = new TreeMap<>();
        sources.forEach(source -> sourceByTarget.put(pair.targetOf(source), source));
        problems.addAll(
            manifests().unwritableTargets(commit, pair.to(), "the signed file", sourceByTarget));
      }
      if (!problems.isEmpty()) {
        continue;
      }
      SortedMap<String, byte[]> unsigned = manifests().listedFiles(commit, sources);
      List<String> resigned = new ArrayList<>();
      for (String source : sources) {
        if (signed.contains(pair.targetOf(source))) {
          resigned.add(pair.targetOf(source));
        }
      }
      SortedMap<String, byte[]> existing = workspace.readFiles(commit, resigned);
      for (String source : sources) {
        String target = pair.targetOf(source);
        moves.add(
            new Move(
                source, target, unsigned.get(source), Optional.ofNullable(existing.get(target))));
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
    moves.sort((a, b) -> a.source().compareTo(b.source()));
    return moves;
  }

  /**
   * Stops the run before anything is signed when a path it deletes or writes holds work a step
   * before it left uncommitted ({@link GitWorkspace#refuseToOverwriteUncommittedWork}): the commit
   * would refuse it too, but only after signing had made its log entries. The signed bytes do not
   * exist yet, so each target is asked about with its unsigned bytes standing in; the commit asks
   * again with the real ones.
   */
  private void refuseToOverwriteUncommittedWork(String base, List<Move> moves) {
    ChangeSet.Builder planned = ChangeSet.builder();
    for (Move move : moves) {
      planned.write(move.target(), move.unsigned());
      planned.delete(move.source());
    }
    workspace.refuseToOverwriteUncommittedWork(base, planned.build());
  }

  /**
   * A signed file larger than the manifest limit could not be read back by {@code check} or {@code
   * verify}; refuse it (naming its source) before anything is written.
   */
  private void refuseOversizedOutput(
      List<Move> moves, SortedMap<String, SigningStep.Result> results) {
    List<InputProblem> problems = new ArrayList<>();
    for (Move move : moves) {
      if (results.get(move.target()) instanceof SigningStep.Written signed
          && signed.bytes().length > tree.maxBytes()) {
        problems.add(
            new InputProblem(
                Path.of(move.source()),
                0,
                "once signed is "
                    + signed.bytes().length
                    + " bytes (every document carries the message of the whole file),"
                    + " over the limit of "
                    + tree.maxBytes()
                    + " bytes for one manifest file",
                "perhaps you should split it into smaller files"));
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
  }

  private ReconcileResult dryRun(List<Move> moves, String base) {
    progress.group("Dry run: would sign " + moves.size() + " manifest(s) at " + abbreviate(base));
    for (Move move : moves) {
      progress.info(
          "would sign "
              + move.source()
              + " -> "
              + move.target()
              + (move.existingSigned().isPresent()
                  ? " (replacing the existing file unless its signature still holds)"
                  : ""));
    }
    progress.endGroup();
    List<String> targets = moves.stream().map(Move::target).sorted().toList();
    return new ReconcileResult(
        ReconcileResult.Outcome.DRY_RUN,
        targets,
        List.of(),
        Optional.empty(),
        "would sign " + moves.size() + " manifest(s) and push to " + options.branch(),
        0);
  }

  /**
   * The run id of the commit when countersign made it, which takes all three of: the {@value
   * CommitMessage#MARKER_TRAILER} trailer in the message's trailer block (not merely quoted in its
   * body), countersign's committer identity, and only the changes countersign makes (files under a
   * signed directory, deletions under an unsigned one). A pull request author controls the first
   * two, not the third: a commit that adds or edits anything else is never skipped. Empty when any
   * of them fails or cannot be told (a shallow clone without the parent); the run then proceeds,
   * and being level-triggered it is a no-op on a tree with nothing unsigned.
   */
  private Optional<String> ownRun(String commit) {
    CommitFacts facts = workspace.commitFacts(commit);
    Optional<String> run = CommitMessage.trailer(facts.message(), CommitMessage.MARKER_TRAILER);
    boolean ourCommitter =
        facts.committerName().equals(options.authorship().committer().name())
            && facts.committerEmail().equalsIgnoreCase(options.authorship().committer().email());
    if (run.isEmpty()
        || !ourCommitter
        || facts.changes().isEmpty()
        || facts.changes().get().isEmpty()) {
      return Optional.empty();
    }
    for (CommitFacts.Change change : facts.changes().get()) {
      boolean signed =
          options.dirs().stream().anyMatch(d -> change.path().startsWith(d.to() + "/"));
      boolean unsignedRemoved =
          change.deleted()
              && options.dirs().stream().anyMatch(d -> change.path().startsWith(d.from() + "/"));
      if (!signed && !unsignedRemoved) {
        return Optional.empty();
      }
    }
    return run;
  }

  /**
   * Signs what earlier attempts have not, reusing earlier results for identical inputs.
   *
   * @param signedBefore the results of earlier attempts by input; this attempt's are added
   */
  private SortedMap<String, SigningStep.Result> sign(
      List<Move> moves, Map<String, SigningStep.Result> signedBefore) {
    SortedMap<String, SigningStep.Result> results = new TreeMap<>();
    List<SigningStep.Input> todo = new ArrayList<>();
    Map<String, String> keys = new HashMap<>();
    for (Move move : moves) {
      String key = cacheKey(move);
      SigningStep.Result cached = signedBefore.get(key);
      if (cached != null) {
        results.put(move.target(), cached);
      } else {
        todo.add(
            new SigningStep.Input(
                move.source(), move.target(), move.unsigned(), move.existingSigned()));
        keys.put(move.target(), key);
      }
    }
    if (todo.isEmpty()) {
      return results;
    }
    progress.group("Signing " + todo.size() + " manifest(s)");
    try {
      List<SigningStep.Result> signed = signer.sign(List.copyOf(todo));
      Set<String> expected = new HashSet<>(keys.keySet());
      for (SigningStep.Result r : signed) {
        if (!expected.remove(r.targetPath())) {
          throw new InternalProblem(
              "The signing step answered for "
                  + r.targetPath()
                  + ", which it was not asked to sign");
        }
        results.put(r.targetPath(), r);
        signedBefore.put(keys.get(r.targetPath()), r);
        progress.info(
            (r instanceof SigningStep.Signed
                    ? "signed "
                    : r instanceof SigningStep.MovedUnsigned
                        ? "moved unsigned "
                        : "already signed ")
                + r.targetPath());
      }
      if (!expected.isEmpty()) {
        throw new InternalProblem(
            "The signing step returned no result for "
                + new TreeMap<>(keys).keySet().stream().filter(expected::contains).toList());
      }
    } finally {
      progress.endGroup();
    }
    return results;
  }

  private static String cacheKey(Move move) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(move.target().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(move.unsigned());
      sha.update((byte) 0);
      move.existingSigned()
          .ifPresentOrElse(
              b -> {
                sha.update(ByteBuffer.allocate(8).putLong(b.length).array());
                sha.update(b);
              },
              () -> sha.update((byte) 1));
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new InternalProblem("SHA-256 is not available", null, e);
    }
  }

  private CommitRequest commitRequest(List<Move> moves, List<String> written) {
    Set<String> writtenSet = new HashSet<>(written);
    StringBuilder body = new StringBuilder();
    for (Move move : moves) {
      body.append(move.source())
          .append(" -> ")
          .append(move.target())
          .append(writtenSet.contains(move.target()) ? "" : " (signature unchanged)")
          .append('\n');
    }
    String subject =
        options
            .commitSubject()
            .orElse(
                "countersign: sign "
                    + moves.size()
                    + (moves.size() == 1 ? " manifest" : " manifests"));
    return options.authorship().request(subject, body.toString());
  }

  private Duration backoff(int attempt) {
    long base = options.backoff().toMillis() << Math.min(attempt - 1, 10);
    long jittered = (long) (base * (0.5 + random.nextDouble()));
    return Duration.ofMillis(Math.min(jittered, MAX_BACKOFF.toMillis()));
  }

  private void pause(Duration delay) {
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RemoteProblem(
          "Interrupted while waiting to retry the push to " + options.branch(),
          "perhaps you should run countersign again; it will pick up where it stopped",
          e);
    }
  }

  private String describeSources() {
    return options.dirs().stream()
        .map(DirPair::from)
        .map(d -> d + "/")
        .reduce((a, b) -> a + ", " + b)
        .orElse("");
  }

  private static List<String> sorted(List<String> paths) {
    return paths.stream().sorted().toList();
  }
}
