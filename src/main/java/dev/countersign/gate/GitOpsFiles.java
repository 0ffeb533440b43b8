package dev.countersign.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What Argo CD and Flux read under a signed directory besides the objects of its signed manifests.
 * The promise ends with a GitOps tool deploying the signed directory, and they do not only apply
 * its {@code .yaml} files:
 *
 * <ul>
 *   <li>a kustomization file ({@code kustomization.yaml}, {@code kustomization.yml} or the
 *       extensionless {@code Kustomization}, kustomize's {@code RecognizedKustomizationFileNames})
 *       in the path or any directory below it is built as it is, by Flux's kustomize-controller
 *       (fluxcd/pkg {@code kustomize.Generator.generateKustomization}, load restrictions none
 *       inside the repository) and by Argo CD (it makes the path a Kustomize application):
 *       resources from anywhere in the repository, patches, generators;
 *   <li>a name ending in {@code Chart.yaml} makes Argo CD render the path as a Helm chart (argo-cd
 *       {@code discovery.Discover});
 *   <li>{@code .argocd-source.yaml} and {@code .argocd-source-APP.yaml} override the Application's
 *       source: include, exclude, recurse, Helm values, Kustomize images (argo-cd {@code
 *       mergeSourceParameters});
 *   <li>a {@code .sourceignore} makes Flux's source-controller leave the files it matches out of
 *       the artifact (fluxcd/pkg {@code sourceignore.LoadIgnorePatterns}, read in every directory);
 *   <li>a directory application applies {@code *.json} files as objects and evaluates {@code
 *       *.jsonnet} files (argo-cd {@code findManifests}).
 * </ul>
 *
 * Such a file is an error ({@value #RULE_FILE}) under a signed directory, signed or not, since a
 * signature on it covers the file, not what the tool builds from it. The one {@code .json} file
 * allowed is a Sigstore bundle sidecar that {@code sign --bundle-sidecar} writes beside a manifest:
 * {@code X.sigstore.json} beside the manifest {@code X}, holding a JSON object with a Sigstore
 * bundle {@code mediaType} and no {@code kind} or {@code apiVersion}. The content is judged, not
 * only the name, since an Argo CD Application that does not exclude sidecars applies any {@code
 * .json} file: a Kubernetes object in JSON named like a sidecar would be deployed unsigned, while a
 * bundle (no {@code kind}) cannot be.
 *
 * <p>Under an unsigned directory the same names are an error when they are manifests: {@code run}
 * would sign them into the signed directory. Other files there are never moved, so they are left
 * alone. Names are compared exactly as the tools compare them (case matters to them).
 *
 * <p>The tools also leave out signed manifests that countersign verifies:
 *
 * <ul>
 *   <li>an Argo CD directory application skips every file whose bytes hold {@value
 *       #SKIP_RENDERING_MARKER}, anywhere: a comment, a value (argo-cd {@code
 *       getPotentiallyValidManifestFile}, since v3.1); with prune the cluster then deletes what it
 *       held while the signed directory still holds it. A manifest {@code run} would sign with it
 *       in its content, and a signed file a change adds or modifies with it in its bytes, is an
 *       error: no signed manifest needs it, and a comment is no part of the signed message, so one
 *       added to a deployed signed file leaves it verifying;
 *   <li>Argo CD reads only names matching {@code ^.*\.(yaml|yml|json|jsonnet)$} (argo-cd {@code
 *       manifestFile}) and Flux only those whose {@code filepath.Ext} is {@code .yaml} or {@code
 *       .yml} (fluxcd/pkg {@code kustomize.scanManifests}), case-sensitively, while countersign
 *       signs {@code .YAML} too (one file set in every command). Such a manifest, to be signed or
 *       brought signed, is a warning: nothing leaves the cluster, the name shows in the change, but
 *       the reviewed object never reaches it.
 * </ul>
 */
final class GitOpsFiles {

  static final String RULE_FILE = "countersign/gitops-file";

  /** kustomize's {@code konfig.RecognizedKustomizationFileNames()}. */
  private static final Set<String> KUSTOMIZATION_NAMES =
      Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");

  /**
   * Argo CD's repo-server leaves out of a directory application every file whose bytes hold this
   * (argo-cd {@code skipFileRenderingMarker}).
   */
  static final String SKIP_RENDERING_MARKER = "+argocd:skip-file-rendering";

  private static final String BUNDLE_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle";
  private static final ObjectMapper JSON = new ObjectMapper();

  private GitOpsFiles() {}

  /**
   * What a GitOps tool makes of a file named {@code name} other than an object to apply, if it
   * reads it at all; empty for a manifest applied as it is, and for files they leave alone.
   */
  static Optional<String> instructions(String name) {
    if (KUSTOMIZATION_NAMES.contains(name)) {
      return Optional.of(
          "is a kustomization file: Flux and Argo CD build the directory from what it says"
              + " (resources from anywhere in the repository, patches, generators) instead of"
              + " applying the signed manifests, so no signature covers what they deploy");
    }
    if (name.endsWith("Chart.yaml")) {
      return Optional.of(
          "makes Argo CD render the directory as a Helm chart (any name ending in Chart.yaml"
              + " does), so it deploys what templates produce, not the signed manifests");
    }
    if (name.equals(".argocd-source.yaml")
        || (name.startsWith(".argocd-source-") && name.endsWith(".yaml"))) {
      return Optional.of(
          "overrides the Argo CD Application's source (include, exclude, recurse, Helm values,"
              + " Kustomize images), so it changes what is deployed from the directory");
    }
    if (name.equals(SourceIgnoreChanges.FILE_NAME)) {
      return Optional.of(
          "makes Flux's source-controller leave the files it matches out of what Flux deploys"
              + " (with prune, the cluster deletes them)");
    }
    if (name.endsWith(".jsonnet")) {
      return Optional.of(
          "is evaluated by an Argo CD directory application, which deploys the objects it"
              + " generates; countersign verifies only .yaml and .yml manifests");
    }
    return Optional.empty();
  }

  /**
   * The findings for the files under signed directories.
   *
   * @param files every regular file under a signed directory, repository-relative, with its size
   * @param manifests those of {@code files} that are manifests
   * @param read the bytes of a file (only sidecar candidates are read, and only when no larger than
   *     {@code maxBytes})
   * @param maxBytes the largest sidecar read
   */
  static List<GateFinding> underSignedDirectories(
      Map<Path, Long> files,
      Collection<Path> manifests,
      Function<Path, Optional<byte[]>> read,
      long maxBytes) {
    List<GateFinding> findings = new ArrayList<>();
    for (Map.Entry<Path, Long> file : files.entrySet()) {
      Path path = file.getKey();
      String name = path.getFileName().toString();
      Optional<String> reason = instructions(name);
      if (reason.isEmpty() && name.endsWith(".json")) {
        reason =
            name.endsWith(ManifestTree.SIDECAR_SUFFIX)
                ? sidecarProblem(path, file.getValue(), manifests, read, maxBytes)
                : Optional.of(
                    "is applied by an Argo CD directory application as a Kubernetes object;"
                        + " countersign verifies only .yaml and .yml manifests");
      }
      reason.ifPresent(
          why ->
              findings.add(
                  finding(
                      path,
                      GateFinding.Check.SIGNATURE,
                      why,
                      "perhaps you should remove it: only signed manifests (and their "
                          + ManifestTree.SIDECAR_SUFFIX
                          + " bundles) belong where a GitOps tool deploys from")));
    }
    return findings;
  }

  /**
   * The findings for manifests under unsigned directories whose signed file would be one that
   * {@link #instructions} names.
   *
   * @param signedPaths each unsigned manifest's signed file, by unsigned manifest
   */
  static List<GateFinding> underUnsignedDirectories(Map<Path, Path> signedPaths) {
    List<GateFinding> findings = new ArrayList<>();
    for (Map.Entry<Path, Path> manifest : signedPaths.entrySet()) {
      Path signed = manifest.getValue();
      instructions(manifest.getKey().getFileName().toString())
          .ifPresent(
              why ->
                  findings.add(
                      finding(
                          manifest.getKey(),
                          GateFinding.Check.MANIFEST,
                          "would be signed into "
                              + ManifestTree.escaped(RepositoryPaths.slashed(signed))
                              + ", where it "
                              + why,
                          "perhaps you should keep it out of the unsigned directory: the"
                              + " signing workflow signs objects, not build instructions")));
    }
    return findings;
  }

  /**
   * The findings for a manifest the signing workflow will sign (one under an unsigned directory, or
   * the refresh's generated content): an error when what {@code run} writes would hold {@value
   * #SKIP_RENDERING_MARKER}, a warning when its name is one the tools do not deploy. The content is
   * judged as {@code run} writes it, each document in canonical YAML: a comment is not written (and
   * so not judged), and an escaped value is written as the text it stands for.
   */
  static List<GateFinding> toBeSigned(ManifestFile file, SignedManifestFormat format) {
    List<GateFinding> findings = new ArrayList<>();
    String written = new String(format.message(file.documents()), StandardCharsets.UTF_8);
    if (written.contains(SKIP_RENDERING_MARKER)) {
      for (ManifestDocument document : file.documents()) {
        // Where the document holds it, for the line; canonical YAML writes the marker only from a
        // key or a string that holds it (it has no space, line break or escape in it).
        markerField(document.content(), "")
            .ifPresent(
                field ->
                    findings.add(
                        skipMarker(
                            file.displayPath(),
                            document.lineOf(field),
                            GateFinding.Check.MANIFEST,
                            document.describe(),
                            "once signed, the file would hold ")));
      }
      if (findings.isEmpty()) {
        findings.add(
            skipMarker(
                file.displayPath(),
                file.documents().get(0).line(),
                GateFinding.Check.MANIFEST,
                "",
                "once signed, the file would hold "));
      }
    }
    undeployedName(
            file.displayPath(),
            GateFinding.Check.MANIFEST,
            "once signed, it would verify but never reach the cluster")
        .ifPresent(findings::add);
    return findings;
  }

  /**
   * The findings for a signed file that a change adds or modifies (every one, without a base
   * commit): an error when its bytes hold {@value #SKIP_RENDERING_MARKER}, comments included (they
   * are not signed), a warning when its name is one the tools do not deploy.
   */
  static List<GateFinding> signedBrought(Path file, byte[] bytes) {
    List<GateFinding> findings = new ArrayList<>();
    String text = new String(bytes, StandardCharsets.UTF_8);
    int at = text.indexOf(SKIP_RENDERING_MARKER);
    if (at >= 0) {
      int line = (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
      findings.add(skipMarker(file, line, GateFinding.Check.SIGNATURE, "", "holds "));
    }
    undeployedName(file, GateFinding.Check.SIGNATURE, "it verifies but never reaches the cluster")
        .ifPresent(findings::add);
    return findings;
  }

  /** The dotted path of the first key or string under {@code node} holding the marker. */
  private static Optional<String> markerField(Object node, String path) {
    String prefix = path.isEmpty() ? "" : path + ".";
    if (node instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        String key = String.valueOf(entry.getKey());
        if (key.contains(SKIP_RENDERING_MARKER)) {
          return Optional.of(prefix + key);
        }
        Optional<String> below = markerField(entry.getValue(), prefix + key);
        if (below.isPresent()) {
          return below;
        }
      }
    } else if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        Optional<String> below = markerField(list.get(i), prefix + i);
        if (below.isPresent()) {
          return below;
        }
      }
    } else if (node instanceof String string && string.contains(SKIP_RENDERING_MARKER)) {
      return Optional.of(path);
    }
    return Optional.empty();
  }

  private static GateFinding skipMarker(
      Path file, int line, GateFinding.Check check, String object, String holds) {
    return new GateFinding(
        ManifestTree.displayPath(RepositoryPaths.slashed(file)),
        line,
        check,
        RULE_FILE,
        object,
        Hints.append(
            holds
                + SKIP_RENDERING_MARKER
                + ": Argo CD skips every file whose bytes hold it, so it would not deploy the"
                + " signed file and, with prune, would delete its objects from the cluster while"
                + " the signed directory still holds them",
            "perhaps you should remove it: no signed manifest needs Argo CD to skip it"),
        GateFinding.Severity.ERROR);
  }

  /**
   * A warning when the name of {@code file} does not end in {@code .yaml} or {@code .yml} as
   * written: countersign signs and verifies it, Argo CD and Flux never read it.
   */
  private static Optional<GateFinding> undeployedName(
      Path file, GateFinding.Check check, String outcome) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    if (name.endsWith(".yaml") || name.endsWith(".yml") || dot < 0) {
      return Optional.empty();
    }
    String lowerCased = name.substring(0, dot) + name.substring(dot).toLowerCase(Locale.ROOT);
    return Optional.of(
        new GateFinding(
            ManifestTree.displayPath(RepositoryPaths.slashed(file)),
            0,
            check,
            RULE_FILE,
            "",
            Hints.append(
                outcome
                    + ": Argo CD and Flux deploy only files whose names end in .yaml or .yml in"
                    + " lower case",
                "perhaps you should rename it to " + ManifestTree.escaped(lowerCased)),
            GateFinding.Severity.WARNING));
  }

  /** Why {@code path}, named like a bundle sidecar, is not one a GitOps tool leaves alone. */
  private static Optional<String> sidecarProblem(
      Path path,
      long size,
      Collection<Path> manifests,
      Function<Path, Optional<byte[]>> read,
      long maxBytes) {
    String name = path.getFileName().toString();
    Path manifest =
        path.resolveSibling(
            name.substring(0, name.length() - ManifestTree.SIDECAR_SUFFIX.length()));
    if (!manifests.contains(manifest)) {
      return Optional.of(
          "is named like a Sigstore bundle sidecar, but there is no manifest "
              + ManifestTree.escaped(RepositoryPaths.slashed(manifest))
              + " beside it; an Argo CD directory application that does not exclude *"
              + ManifestTree.SIDECAR_SUFFIX
              + " applies it");
    }
    if (size > maxBytes) {
      return Optional.of(
          "is " + size + " bytes, larger than a Sigstore bundle sidecar may be (" + maxBytes + ")");
    }
    Optional<byte[]> bytes = read.apply(path);
    JsonNode bundle = null;
    if (bytes.isPresent()) {
      try {
        bundle = JSON.readTree(bytes.get());
      } catch (IOException e) {
        bundle = null;
      }
    }
    boolean isBundle =
        bundle != null
            && bundle.isObject()
            && bundle.path("mediaType").asText("").startsWith(BUNDLE_MEDIA_TYPE)
            && !bundle.has("kind")
            && !bundle.has("apiVersion");
    if (!isBundle) {
      return Optional.of(
          "is named like a Sigstore bundle sidecar but is not one (a JSON object with a "
              + BUNDLE_MEDIA_TYPE
              + " mediaType and no kind or apiVersion); an Argo CD directory application that"
              + " does not exclude *"
              + ManifestTree.SIDECAR_SUFFIX
              + " applies a Kubernetes object written in it");
    }
    return Optional.empty();
  }

  private static GateFinding finding(
      Path file, GateFinding.Check check, String message, String hint) {
    return new GateFinding(
        ManifestTree.displayPath(RepositoryPaths.slashed(file)),
        0,
        check,
        RULE_FILE,
        "",
        Hints.append(message, hint),
        GateFinding.Severity.ERROR);
  }
}
