package dev.countersign.oci;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.JGitWorkspace;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.support.Env;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.DocumentVerdict;
import dev.countersign.verification.ManifestVerifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What {@code publish} puts in the artifact: the signed manifest files under SOURCE as they are in
 * a commit (never the work tree, so what is published is what was reviewed and committed), with the
 * commit's id and time as provenance, each file verified before it may be published.
 */
public final class CommitSource {

  /**
   * The files (paths relative to SOURCE) and where they came from.
   *
   * @param rejected the failed verdicts (files named by repository-relative path); when not empty,
   *     nothing may be published or signed
   */
  public record Contents(
      SortedMap<String, byte[]> files,
      ArtifactLayout.Provenance provenance,
      List<DocumentVerdict> rejected) {

    public Contents {
      rejected = List.copyOf(rejected);
    }

    /** True when every document of every file verified. */
    public boolean verified() {
      return rejected.isEmpty();
    }
  }

  private CommitSource() {}

  /**
   * @param source a directory or file inside the work tree
   * @param commitId the commit to read
   * @param sourceUrl {@code --source-url}, else the GitHub repository of the run, else origin
   * @throws UsageProblem when SOURCE is outside the work tree or holds no manifest
   * @param verifier judges every file exactly ({@link
   *     dev.countersign.verification.ContentMatch#EXACT}) before it may be published: countersign
   *     signs an artifact only over manifests it verified
   * @throws InputProblem when an entry is not a regular file (a symbolic link, a submodule) or a
   *     manifest cannot be parsed
   */
  public static Contents read(
      JGitWorkspace workspace,
      Path source,
      String commitId,
      Optional<String> sourceUrl,
      Env env,
      ManifestReader reader,
      ManifestVerifier verifier) {
    Path root = workspace.directory().toAbsolutePath().normalize();
    Path absolute = source.toAbsolutePath().normalize();
    if (!absolute.startsWith(root) || absolute.equals(root)) {
      throw new UsageProblem(
          "SOURCE " + source + " is not a directory or file inside the repository " + root,
          "name the signed directory, e.g. signed/ (publish reads it from the commit)");
    }
    String prefix = RepositoryPaths.slashed(root.relativize(absolute));
    // The one file set (links, submodules, unusable names and oversized files refused, every
    // .yaml/.yml in any case), read from the commit as run and check see it.
    SortedMap<String, byte[]> files = new TreeMap<>();
    List<InputProblem> unreadable = new ArrayList<>();
    List<DocumentVerdict> rejected = new ArrayList<>();
    for (Map.Entry<String, byte[]> entry :
        new CommitManifests(workspace, ManifestTree.of(reader)).read(commitId, prefix).entrySet()) {
      String path = entry.getKey();
      String relative =
          path.equals(prefix)
              ? path.substring(path.lastIndexOf('/') + 1)
              : path.substring(prefix.length() + 1);
      verify(path, entry.getValue(), reader, verifier, unreadable, rejected);
      files.put(relative, entry.getValue());
    }
    if (!unreadable.isEmpty()) {
      throw InputProblem.combine(unreadable);
    }
    if (files.isEmpty()) {
      throw new UsageProblem(
          "There are no manifest files (.yaml/.yml) under "
              + prefix
              + " in commit "
              + abbreviate(commitId),
          "publish reads SOURCE from the commit: commit the signed files first");
    }
    Optional<String> url =
        sourceUrl
            .or(
                () ->
                    env.get("GITHUB_REPOSITORY")
                        .map(
                            r ->
                                env.getOrDefault("GITHUB_SERVER_URL", "https://github.com")
                                        .replaceAll("/+$", "")
                                    + "/"
                                    + r))
            .or(() -> workspace.remoteUrl("origin"))
            .map(CommitSource::withoutCredentials);
    return new Contents(
        files,
        new ArtifactLayout.Provenance(commitId, workspace.commitTime(commitId), url),
        rejected);
  }

  /**
   * Verifies the committed bytes of one file exactly as {@code check} verifies a signed file: an
   * unsigned document, a signature that does not verify for the verifier's signers, or content that
   * differs from its signed message is a failed verdict.
   */
  private static void verify(
      String path,
      byte[] bytes,
      ManifestReader reader,
      ManifestVerifier verifier,
      List<InputProblem> unreadable,
      List<DocumentVerdict> rejected) {
    Path display = Path.of(path);
    ManifestFile file;
    try {
      file = new ManifestFile(display, display, reader.parse(bytes, display), bytes);
    } catch (InputProblem e) {
      // Not YAML, or no Kubernetes object at all (parse refuses a file without one).
      unreadable.add(e);
      return;
    }
    verifier.verify(file).stream().filter(v -> !v.passed()).forEach(rejected::add);
  }

  /** A repository URL without {@code user:password@}. */
  static String withoutCredentials(String url) {
    return url.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", "$1");
  }
}
