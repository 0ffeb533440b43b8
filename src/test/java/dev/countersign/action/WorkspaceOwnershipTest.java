package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.GitFixture;
import dev.countersign.git.JGitWorkspace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
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
    Assumptions.assumeTrue(
        uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
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
  void jgitWorkspaceApply_asRoot_newDirectoriesAndFilesBelongToTheWorkspaceOwner()
      throws Exception {
    Assumptions.assumeTrue(
        uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    GitFixture fixture = new GitFixture(tmp);
    fixture.commitToOrigin(
        "main", java.util.Map.of("unsigned/a.yaml", "kind: A\n"), java.util.Set.of(), "init");
    Path clone = fixture.clone("ws", 0, false);
    Files.setAttribute(clone, "unix:uid", 1001);
    Files.setAttribute(clone, "unix:gid", 1001);

    try (JGitWorkspace ws =
        JGitWorkspace.open(
            clone, java.time.Clock.systemUTC(), WorkspaceOwnership.forProcess(clone))) {
      ws.apply(
          ChangeSet.empty()
              .write("signed/apps/a.yaml", new byte[] {'x'})
              .delete("unsigned/a.yaml"));
    }

    assertThat(uidOf(clone.resolve("signed"))).isEqualTo(1001);
    assertThat(uidOf(clone.resolve("signed/apps"))).isEqualTo(1001);
    assertThat(uidOf(clone.resolve("signed/apps/a.yaml"))).isEqualTo(1001);
  }

  @Test
  void adoptRootOwned_asRoot_handsOverOnlyRootOwnedEntries() throws Exception {
    Assumptions.assumeTrue(
        uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Files.setAttribute(workspace, "unix:uid", 1001);
    Path git = Files.createDirectories(workspace.resolve(".git/objects/ab"));
    Path object = Files.writeString(git.resolve("cdef"), "x");
    Path foreign = Files.writeString(workspace.resolve(".git/foreign"), "y");
    Files.setAttribute(foreign, "unix:uid", 4242);

    int changed =
        WorkspaceOwnership.forProcess(workspace).adoptRootOwned(workspace.resolve(".git"));

    assertThat(changed).isEqualTo(4); // .git, objects, ab, cdef
    assertThat(uidOf(object)).isEqualTo(1001);
    assertThat(uidOf(workspace.resolve(".git"))).isEqualTo(1001);
    assertThat(uidOf(foreign)).isEqualTo(4242);
  }

  @Test
  void adoptRootOwned_asRoot_whileAnotherThreadDeletesFilesUnderIt_handsOverTheRest()
      throws Exception {
    // On a cancelled job this hand-back and the temporary files' shutdown hook run at once: a file
    // deleted while the walk reaches it must not stop the walk and leave the rest root-owned.
    Assumptions.assumeTrue(
        uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Files.setAttribute(workspace, "unix:uid", 1001);
    List<Path> doomed = new ArrayList<>();
    for (int d = 0; d < 20; d++) {
      Path dir = Files.createDirectories(workspace.resolve("signed/d" + d));
      for (int f = 0; f < 500; f++) {
        doomed.add(Files.writeString(dir.resolve(".countersign-" + f + ".tmp"), "x"));
      }
    }
    Path kept = Files.writeString(workspace.resolve("signed/zz-kept.yaml"), "kept");
    WorkspaceOwnership ownership = WorkspaceOwnership.forProcess(workspace);
    CountDownLatch started = new CountDownLatch(1);
    Thread deleter =
        new Thread(
            () -> {
              started.countDown();
              for (Path file : doomed) {
                try {
                  Files.deleteIfExists(file);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }
            });
    deleter.start();
    started.await();

    ownership.adoptRootOwned(workspace.resolve("signed"));
    deleter.join();

    assertThat(uidOf(kept)).isEqualTo(1001);
    assertThat(uidOf(workspace.resolve("signed"))).isEqualTo(1001);
  }

  @Test
  void handBackOnExit_asRoot_whenTheCommandFails_theWholeWorkspaceGoesBackToItsOwner()
      throws Exception {
    Assumptions.assumeTrue(
        uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Files.setAttribute(workspace, "unix:uid", 1001);
    Files.setAttribute(workspace, "unix:gid", 1001);
    Path foreign = Files.writeString(workspace.resolve("theirs.txt"), "y");
    Files.setAttribute(foreign, "unix:uid", 4242);
    java.util.List<String> hookFailures = new java.util.ArrayList<>();
    Path fetchHead = workspace.resolve(".git/FETCH_HEAD");
    Path fetchedRef = workspace.resolve(".git/refs/countersign/fetched/main");
    Path leftover = workspace.resolve("signed/.tmp-a.yaml");

    WorkspaceOwnership ownership = WorkspaceOwnership.forProcess(workspace);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> {
              try (WorkspaceOwnership.HandBack handBack =
                  ownership.handBackOnExit(workspace, hookFailures::add)) {
                Files.createDirectories(fetchedRef.getParent());
                Files.writeString(fetchHead, "abc\n");
                Files.writeString(fetchedRef, "abc\n");
                Files.createDirectories(leftover.getParent());
                Files.writeString(leftover, "half");
                throw new IllegalStateException("signing failed");
              }
            })
        .hasMessage("signing failed");

    for (Path p :
        java.util.List.of(
            workspace.resolve(".git"),
            fetchHead,
            workspace.resolve(".git/refs/countersign"),
            fetchedRef,
            leftover.getParent(),
            leftover)) {
      assertThat(uidOf(p)).as(p.toString()).isEqualTo(1001);
      assertThat((Integer) Files.getAttribute(p, "unix:gid")).as(p.toString()).isEqualTo(1001);
    }
    assertThat(uidOf(foreign)).isEqualTo(4242);
    assertThat(hookFailures).isEmpty();
  }

  @Test
  void handBackOnExit_notRoot_changesNothing() throws Exception {
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Path file = Files.writeString(workspace.resolve("a.yaml"), "x");
    int before = uidOf(file);

    try (WorkspaceOwnership.HandBack handBack =
        WorkspaceOwnership.of(workspace, 1001).handBackOnExit(workspace, m -> {})) {
      Files.writeString(file, "y");
    }

    assertThat(uidOf(file)).isEqualTo(before);
  }

  @Test
  void handBackOnExit_asRoot_whenTheProcessGetsSigterm_theShutdownHookHandsFilesBack()
      throws Exception {
    Assumptions.assumeTrue(
        uidOf(Path.of("/proc/self")) == 0, "changing owners needs root, as in a docker action");
    Path workspace = Files.createDirectories(tmp.resolve("workspace"));
    Files.setAttribute(workspace, "unix:uid", 1001);
    Files.setAttribute(workspace, "unix:gid", 1001);
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    Path output = tmp.resolve("command.out");
    Process process =
        new ProcessBuilder(
                javaBin.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SignalledCommand.class.getName(),
                workspace.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      while (!Files.readString(output).contains("files written") && process.isAlive()) {
        Thread.sleep(50);
      }
      assertThat(Files.readString(output)).isEqualTo("files written\n");
      process.destroy(); // SIGTERM, as a cancelled job's docker stop
      assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    } finally {
      process.destroyForcibly();
    }

    assertThat(Files.readString(output))
        .isEqualTo("files written\n"); // the hook reported no failure
    assertThat(process.exitValue()).isEqualTo(143);
    assertThat(uidOf(workspace.resolve(".git"))).isEqualTo(1001);
    assertThat(uidOf(workspace.resolve(".git/FETCH_HEAD"))).isEqualTo(1001);
  }

  /**
   * A command killed while it holds the guard: writes a root-owned file, then waits for the signal.
   */
  static final class SignalledCommand {
    public static void main(String[] args) throws Exception {
      Path workspace = Path.of(args[0]);
      WorkspaceOwnership.HandBack handBack =
          WorkspaceOwnership.forProcess(workspace).handBackOnExit(workspace, System.out::println);
      Files.createDirectories(workspace.resolve(".git"));
      Files.writeString(workspace.resolve(".git/FETCH_HEAD"), "abc\n");
      System.out.println("files written");
      System.out.flush();
      Thread.sleep(60_000);
      handBack.close();
    }
  }
}
