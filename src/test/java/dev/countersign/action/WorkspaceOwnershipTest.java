package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

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
}
