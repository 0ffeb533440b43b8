package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.GitFixture;
import dev.countersign.git.JGitWorkspace;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceOwnershipTest {

  @TempDir Path tmp;

  static int uidOf(Path p) throws Exception {
    return (Integer) Files.getAttribute(p, "unix:uid");
  }

  @Test
  void accept_runningAsRootInAWorkspaceOwnedByTheRunner_givesFilesToTheRunner() throws Exception {
    Assumptions.assumeTrue(uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Files.setAttribute(workspace, "unix:uid", 1001);
    Files.setAttribute(workspace, "unix:gid", 127);
    Path file = Files.writeString(workspace.resolve("signed.yaml"), "x");

    WorkspaceOwnership ownership = WorkspaceOwnership.forProcess(workspace);
    ownership.accept(file);

    assertThat(ownership.isActive()).isTrue();
    assertThat(uidOf(file)).isEqualTo(1001);
    assertThat((Integer) Files.getAttribute(file, "unix:gid")).isEqualTo(127);
  }

  @Test
  void accept_notRoot_changesNothing() throws Exception {
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Path file = Files.writeString(workspace.resolve("signed.yaml"), "x");
    int before = uidOf(file);

    WorkspaceOwnership ownership = WorkspaceOwnership.of(workspace, 1001);
    ownership.accept(file);

    assertThat(ownership.isActive()).isFalse();
    assertThat(uidOf(file)).isEqualTo(before);
  }

  @Test
  void of_rootInARootOwnedWorkspace_isInactive() throws Exception {
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Assumptions.assumeTrue(uidOf(workspace) == 0);

    assertThat(WorkspaceOwnership.of(workspace, 0).isActive()).isFalse();
  }

  @Test
  void jgitWorkspaceApply_asRoot_newDirectoriesAndFilesBelongToTheWorkspaceOwner() throws Exception {
    Assumptions.assumeTrue(uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    GitFixture fixture = new GitFixture(tmp);
    fixture.commitToOrigin("main", java.util.Map.of("unsigned/a.yaml", "kind: A\n"), java.util.Set.of(), "init");
    Path clone = fixture.clone("ws", 0, false);
    Files.setAttribute(clone, "unix:uid", 1001);
    Files.setAttribute(clone, "unix:gid", 1001);

    try (JGitWorkspace ws = JGitWorkspace.open(
        clone, java.time.Clock.systemUTC(), WorkspaceOwnership.forProcess(clone), null)) {
      ws.apply(ChangeSet.empty().write("signed/apps/a.yaml", new byte[] {'x'}).delete("unsigned/a.yaml"));
    }

    assertThat(uidOf(clone.resolve("signed"))).isEqualTo(1001);
    assertThat(uidOf(clone.resolve("signed/apps"))).isEqualTo(1001);
    assertThat(uidOf(clone.resolve("signed/apps/a.yaml"))).isEqualTo(1001);
  }

  @Test
  void adoptRootOwned_asRoot_handsOverOnlyRootOwnedEntries() throws Exception {
    Assumptions.assumeTrue(uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Files.setAttribute(workspace, "unix:uid", 1001);
    Path git = Files.createDirectories(workspace.resolve(".git/objects/ab"));
    Path object = Files.writeString(git.resolve("cdef"), "x");
    Path foreign = Files.writeString(workspace.resolve(".git/foreign"), "y");
    Files.setAttribute(foreign, "unix:uid", 4242);

    int changed = WorkspaceOwnership.forProcess(workspace).adoptRootOwned(workspace.resolve(".git"));

    assertThat(changed).isEqualTo(4); // .git, objects, ab, cdef
    assertThat(uidOf(object)).isEqualTo(1001);
    assertThat(uidOf(workspace.resolve(".git"))).isEqualTo(1001);
    assertThat(uidOf(foreign)).isEqualTo(4242);
  }
}
