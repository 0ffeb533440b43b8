package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.junit.jupiter.api.Test;

/** Exercises the reader directly; installing it would change jgit for every test in the JVM. */
class IsolatedGitConfigTest {

  @Test
  void userAndSystemConfig_areEmptyAndIgnoreWhatWasSetBeforeLoading() throws Exception {
    IsolatedGitConfig isolated = new IsolatedGitConfig(SystemReader.getInstance());

    StoredConfig user = isolated.openUserConfig(null, FS.DETECTED);
    user.setBoolean("commit", null, "gpgsign", true);
    user.setString("user", null, "name", "Laptop User");
    user.load();
    StoredConfig system = isolated.openSystemConfig(null, FS.DETECTED);
    system.load();

    assertThat(user.getBoolean("commit", "gpgsign", false)).isFalse();
    assertThat(user.getString("user", null, "name")).isNull();
    assertThat(system.getSections()).isEmpty();
    assertThat(isolated.getenv("GIT_CONFIG_NOSYSTEM")).isEqualTo("1");
    assertThat(isolated.getenv("GIT_CONFIG_GLOBAL")).isNull();
    assertThat(isolated.getenv("XDG_CONFIG_HOME")).isNull();
    assertThat(isolated.getCurrentTime()).isPositive();
  }
}
