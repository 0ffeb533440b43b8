package dev.countersign.oci;

import dev.countersign.git.JGitWorkspace;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.support.Env;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * What {@code publish} puts in the artifact: the signed manifest files under SOURCE as they are
 * in a commit (never the work tree, so what is published is what was reviewed and committed),
 * with the commit's id and time as provenance.
 */
public final class CommitSource {

  /** The files (paths relative to SOURCE) and where they came from. */
  public record Contents(SortedMap<String, byte[]> files, ArtifactLayout.Provenance provenance) {}

  private CommitSource() {}

  /**
   * @param source a directory or file inside the work tree
   * @param commitId the commit to read
   * @param sourceUrl {@code --source-url}, else the GitHub repository of the run, else origin
   * @throws UsageProblem when SOURCE is outside the work tree or holds no manifest
   * @throws InputProblem when an entry is not a regular file (a symbolic link, a submodule) or a
   *     manifest is not signed
   */
  public static Contents read(JGitWorkspace workspace, Path source, String commitId, Optional<String> sourceUrl, Env env,
      ManifestReader reader, SignedManifestFormat format) {
    Path root = workspace.directory().toAbsolutePath().normalize();
    Path absolute = source.toAbsolutePath().normalize();
    if (!absolute.startsWith(root) || absolute.equals(root)) {
      throw new UsageProblem("SOURCE " + source + " is not a directory or file inside the repository " + root,
          "name the signed directory, e.g. signed/ (publish reads it from the commit)");
    }
    String prefix = root.relativize(absolute).toString().replace('\\', '/');
    // The one file set (links, submodules, unusable names and oversized files refused, every
    // .yaml/.yml in any case), read from the commit as run and check see it.
    SortedMap<String, byte[]> files = new TreeMap<>();
    List<InputProblem> unsigned = new ArrayList<>();
    for (Map.Entry<String, byte[]> entry : new CommitManifests(workspace, ManifestTree.of(reader)).read(commitId, prefix).entrySet()) {
      String path = entry.getKey();
      String relative = path.equals(prefix) ? path.substring(path.lastIndexOf('/') + 1) : path.substring(prefix.length() + 1);
      requireSigned(path, entry.getValue(), reader, format, unsigned);
      files.put(relative, entry.getValue());
    }
    if (!unsigned.isEmpty()) {
      throw InputProblem.combine(unsigned);
    }
    if (files.isEmpty()) {
      throw new UsageProblem("There are no manifest files (.yaml/.yml) under " + prefix + " in commit " + abbreviate(commitId),
          "publish reads SOURCE from the commit: commit the signed files first");
    }
    Optional<String> url = sourceUrl
        .or(() -> env.get("GITHUB_REPOSITORY").map(r -> env.getOrDefault("GITHUB_SERVER_URL", "https://github.com")
            .replaceAll("/+$", "") + "/" + r))
        .or(() -> workspace.remoteUrl("origin"))
        .map(CommitSource::withoutCredentials);
    return new Contents(files, new ArtifactLayout.Provenance(commitId, workspace.commitTime(commitId), url));
  }

  private static void requireSigned(String path, byte[] bytes, ManifestReader reader, SignedManifestFormat format,
      List<InputProblem> problems) {
    Path display = Path.of(path);
    List<ManifestDocument> documents;
    try {
      documents = reader.parse(bytes, display);
    } catch (InputProblem e) {
      problems.add(e);
      return;
    }
    for (ManifestDocument document : documents) {
      Optional<SignedContent> content;
      try {
        content = format.decode(document);
      } catch (IllegalArgumentException e) {
        problems.add(new InputProblem(display, document.line(), "has signature annotations that cannot be decoded: " + e.getMessage(),
            "sign it again with countersign"));
        return;
      }
      if (content.isEmpty() || content.get().signatureSets().isEmpty()) {
        problems.add(new InputProblem(display, document.line(), document.describe() + " is not signed",
            "publish takes signed manifests: sign them (countersign sign / run) and commit first"));
        return;
      }
    }
  }

  /** A repository URL without {@code user:password@}. */
  static String withoutCredentials(String url) {
    return url.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", "$1");
  }

  private static String abbreviate(String commitId) {
    return commitId.length() > 12 ? commitId.substring(0, 12) : commitId;
  }
}
