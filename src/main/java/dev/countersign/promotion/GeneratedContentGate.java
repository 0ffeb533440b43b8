package dev.countersign.promotion;

import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestFile;
import java.util.List;

/**
 * Port: judges the manifests the scheduled refresh ({@link RefreshJob}) would sign or propose by
 * the rules of the commit it proposes them to, before anything is signed. The refresh signs what
 * its generator wrote without a pull request ever showing it under an unsigned directory, so this
 * is where it meets the rules an unsigned manifest meets in {@code check}.
 */
@FunctionalInterface
public interface GeneratedContentGate {

  /**
   * @param git the repository holding {@code baseCommit}, whose files (never the work tree's) hold
   *     the rules
   * @param generated the generated manifests, named by their path in the work tree
   * @return true when they may be signed and proposed; false once what refuses them is reported
   */
  boolean admits(GitWorkspace git, String baseCommit, List<ManifestFile> generated);
}
