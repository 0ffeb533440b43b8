package dev.countersign.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The files and directories a writer made beside its targets and has not put in place yet, which a
 * JVM stopped now (SIGTERM from a cancelled job) removes on its way out, as jgit releases its lock
 * files: otherwise they stay as untracked files, holding validly signed bytes or a private key, for
 * a later step that commits everything to push. One shutdown hook for the process, added with the
 * first registration. Thread-safe.
 *
 * <p>A writer registers a path once it has made it and unregisters it when the path is in place,
 * removed or no longer its own to remove; the hook removes what is still registered, newest first,
 * a directory only while empty. The other threads keep running while the hook does: a path
 * registered after that is removed at once and the registration throws, so the writer stops.
 */
public final class TemporaryFiles {

  private static final Object LOCK = new Object();

  /** In registration order: a directory comes before what is made in it. */
  private static final Set<Path> REGISTERED = new LinkedHashSet<>();

  private static boolean hookAdded;
  private static boolean stopping;

  private TemporaryFiles() {}

  /**
   * Removes {@code path} (a file, or a directory if empty) should the JVM stop before {@link
   * #unregister}. Call it right after making the path, before writing into it.
   *
   * @throws IOException when the JVM is stopping already; {@code path} was removed
   */
  public static void register(Path path) throws IOException {
    synchronized (LOCK) {
      if (!stopping && !hookAdded) {
        try {
          Runtime.getRuntime()
              .addShutdownHook(
                  new Thread(TemporaryFiles::removeAll, "countersign-temporary-files"));
          hookAdded = true;
        } catch (IllegalStateException alreadyStopping) {
          stopping = true;
        }
      }
      if (!stopping) {
        REGISTERED.add(path);
        return;
      }
    }
    remove(path);
    throw new IOException("the process is stopping, so " + path + " was removed again");
  }

  /** Leaves {@code paths} to their writer: in place, removed, or not made. */
  public static void unregister(Collection<Path> paths) {
    synchronized (LOCK) {
      // One removal per path: removeAll would ask the list about every registered path (it does
      // when the set is no larger), a time in the square of a write's files under the lock.
      for (Path path : paths) {
        REGISTERED.remove(path);
      }
    }
  }

  /** {@link #unregister(Collection)} for one path. */
  public static void unregister(Path path) {
    unregister(List.of(path));
  }

  private static void removeAll() {
    List<Path> left;
    synchronized (LOCK) {
      stopping = true;
      left = new ArrayList<>(REGISTERED);
      REGISTERED.clear();
    }
    for (int i = left.size() - 1; i >= 0; i--) {
      remove(left.get(i));
    }
  }

  /** Removes a file, a link (never what it points to) or an empty directory; best effort. */
  private static void remove(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException notEmptyOrNotAllowed) {
      // A directory a file arrived in stays, as does anything the process may not remove; the
      // JVM is stopping and nobody is left to tell.
    }
  }
}
