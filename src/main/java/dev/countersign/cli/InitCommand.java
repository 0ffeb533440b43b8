package dev.countersign.cli;

import dev.countersign.init.GitHubRepository;
import dev.countersign.init.InitOptions;
import dev.countersign.init.ManifestInventory;
import dev.countersign.init.RepositoryInitializer;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.pipeline.DirPair;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.workflow.WorkflowFile;
import dev.countersign.workflow.Workflows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "init",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Write the workflows, trust policy, Kyverno policy and Argo CD Application for this"
          + " repository.",
      "They name the same signer identities; the Kyverno ClusterPolicy (with its dry-run RBAC)"
          + " covers the kinds and namespaces found.",
      "Reads the owner and name from the origin URL, the branch from origin's default branch and"
          + " the manifests in the unsigned and signed",
      "directories; options override. Refuses to overwrite existing files unless --force."
    })
final class InitCommand extends Subcommand {

  @Option(
      names = "--repo",
      paramLabel = "DIR",
      description =
          "The repository's work tree to read and write (default: the current directory). Before"
              + " 0.2 this option named the GitHub repository; a value that is not a directory is"
              + " still read that way, with a warning.")
  String repo;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      hidden = true,
      description = "Deprecated spelling of --repo DIR.")
  Path legacyDir;

  @Mixin GitHubRepositoryOptions gitHub;

  @Option(
      names = "--branch",
      paramLabel = "BRANCH",
      description =
          "The branch pull requests merge into and the signer runs on (default: origin's default"
              + " branch, else a checked-out main or master, else main outside git).")
  String branch;

  @Mixin DirectoryOptions directories;

  @Option(
      names = "--namespace",
      paramLabel = "NAMESPACE",
      description =
          "Namespace Argo CD deploys objects without one to (default: derived from the repository"
              + " name).")
  String namespace;

  @Option(
      names = "--promotion",
      description = "Also write the promotion workflow (signed directory to --promote-to).")
  boolean promotion;

  @Option(
      names = "--promote-to",
      paramLabel = "DIR",
      description =
          "Target of the promotion workflow (default: prod/ followed by the signed directory);"
              + " implies --promotion.")
  Path promoteTo;

  @Option(
      names = "--signing-workflow",
      paramLabel = "FILE",
      description =
          "Another workflow file in .github/workflows that signs (repeatable); existing workflows"
              + " that run countersign are found by themselves.")
  List<String> signingWorkflows = new ArrayList<>();

  @Option(names = "--force", description = "Overwrite files that already exist.")
  boolean force;

  @Override
  int call(Runtime runtime) {
    Path workTree = Path.of(".");
    String legacyName = null;
    if (repo != null) {
      if (Files.isDirectory(Path.of(repo))
          || gitHub.name != null
          || !repo.matches("[A-Za-z0-9._-]{1,100}")) {
        workTree = Path.of(repo);
      } else {
        legacyName = repo;
        runtime
            .err()
            .println(
                "warning: init --repo now names the work tree, as in run and check; read \""
                    + repo
                    + "\" as the GitHub repository name: pass --name "
                    + repo
                    + " instead");
      }
    }
    if (legacyDir != null) {
      runtime.err().println("warning: init --dir is deprecated; pass --repo " + legacyDir);
      workTree = legacyDir;
    }
    if (!Files.isDirectory(workTree)) {
      throw new UsageProblem(
          "The work tree " + workTree + " does not exist while preparing countersign init",
          "perhaps you should pass --repo DIR, the repository's checkout");
    }

    GitHubRepositoryOptions.Checkout checkout =
        GitHubRepositoryOptions.Checkout.of(workTree, runtime.clock());
    GitHubRepository repository =
        gitHub.repository(checkout, runtime.env(), Optional.ofNullable(legacyName));
    if (repository.owner().isEmpty() || repository.name().isEmpty()) {
      throw new UsageProblem(
          "The GitHub "
              + (repository.owner().isEmpty() ? "owner" : "repository name")
              + " is missing while preparing countersign init: origin is "
              + checkout.describeOrigin(),
          "perhaps you should pass --owner OWNER --name NAME (the signer identity names them)");
    }
    String branchName = branch != null ? branch : checkout.mergeBranch("init");

    DirPair pair = directories.pair();
    InitOptions base =
        InitOptions.of(repository.owner(), repository.name(), branchName)
            .withDirectories(Path.of(pair.from()), Path.of(pair.to()));
    if (namespace != null) {
      base = base.withNamespace(namespace.toLowerCase(Locale.ROOT));
    }
    ManifestInventory inventory =
        ManifestInventory.scan(
            workTree, List.of(base.unsignedDir(), base.signedDir()), new ManifestReader());
    List<String> others = new ArrayList<>(signingWorkflows);
    Workflows.Directory workflows = Workflows.read(workTree);
    for (InputProblem unreadable : workflows.unreadable()) {
      runtime
          .err()
          .println(
              "warning: "
                  + unreadable.getMessage()
                  + "; not looked at for signing: if it signs too, name it with"
                  + " --signing-workflow "
                  + unreadable.file().getFileName());
    }
    for (WorkflowFile workflow : workflows.workflows()) {
      if (!workflow.fileName().equals(InitOptions.SIGNING_WORKFLOW)
          && workflow.countersignSteps().stream()
              .anyMatch(WorkflowFile.CountersignStep::signsKeylessly)
          && !others.contains(workflow.fileName())) {
        others.add(workflow.fileName());
      }
    }
    InitOptions options =
        base.withInventory(inventory)
            .withOtherSigningWorkflows(others)
            .withPromotionTarget(promoteTo != null ? Optional.of(promoteTo) : Optional.empty())
            .withForce(force);
    if (promotion && promoteTo == null) {
      options = options.withPromotion(true);
    }

    List<Path> written = new RepositoryInitializer().write(workTree, options);
    for (Path file : written) {
      runtime.out().println("wrote " + file.toString().replace('\\', '/'));
    }
    for (String workflow : options.signingWorkflows()) {
      runtime.out().println("signer: " + options.subjectOf(workflow));
    }
    runtime
        .out()
        .println(
            "kinds: "
                + String.join(
                    ", ",
                    options.policyKinds().stream()
                        .map(ManifestInventory.Kind::kind)
                        .distinct()
                        .toList())
                + (inventory.isEmpty() ? " (no manifests found yet; defaults)" : ""));
    runtime.out().println("namespaces: " + String.join(", ", options.policyNamespaces()));
    runtime
        .out()
        .println(
            "next: commit these files; apply the two files in .countersign/cluster/ (Kyverno policy"
                + " and its dry-run RBAC); require the check-on-pr status on "
                + options.branch()
                + " and give sign-on-merge a GitHub App token if "
                + options.branch()
                + " is protected (docs/github-token.md);"
                + " run countersign doctor after any change to the chain");
    return ExitCode.OK.code();
  }
}
