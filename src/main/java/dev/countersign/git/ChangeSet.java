package dev.countersign.git;

import dev.countersign.support.problems.InternalProblem;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Files to write (with their exact bytes) and files to delete, as repository-relative paths with
 * forward slashes. Immutable and sorted, so two equal change sets describe the same commit.
 */
public final class ChangeSet {

  private final SortedMap<String, byte[]> writes;
  private final SortedSet<String> deletes;

  private ChangeSet(SortedMap<String, byte[]> writes, SortedSet<String> deletes) {
    this.writes = Collections.unmodifiableSortedMap(writes);
    this.deletes = Collections.unmodifiableSortedSet(deletes);
  }

  public static ChangeSet empty() {
    return new ChangeSet(new TreeMap<>(), new TreeSet<>());
  }

  /** A copy that also writes {@code path}; a later write to the same path wins. */
  public ChangeSet write(String path, byte[] bytes) {
    String p = checkedPath(path);
    TreeMap<String, byte[]> w = new TreeMap<>(writes);
    w.put(p, bytes.clone());
    TreeSet<String> d = new TreeSet<>(deletes);
    d.remove(p);
    return new ChangeSet(w, d);
  }

  /** A copy that also deletes {@code path}. */
  public ChangeSet delete(String path) {
    String p = checkedPath(path);
    TreeMap<String, byte[]> w = new TreeMap<>(writes);
    w.remove(p);
    TreeSet<String> d = new TreeSet<>(deletes);
    d.add(p);
    return new ChangeSet(w, d);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a change set in one pass, with the semantics of chained {@link #write}/{@link #delete}
   * calls (a later operation on a path wins), without their copy per call: those are quadratic, 1.4
   * s at 5,000 files (docs/performance.md). Takes ownership of the written arrays: the caller must
   * not modify them afterwards (they are not copied, which saves holding every signed file twice).
   * Not thread-safe; single use.
   */
  public static final class Builder {
    private TreeMap<String, byte[]> writes = new TreeMap<>();
    private TreeSet<String> deletes = new TreeSet<>();

    private Builder() {}

    public Builder write(String path, byte[] bytes) {
      String p = checkedPath(path);
      writes.put(p, Objects.requireNonNull(bytes, "bytes"));
      deletes.remove(p);
      return this;
    }

    public Builder delete(String path) {
      String p = checkedPath(path);
      writes.remove(p);
      deletes.add(p);
      return this;
    }

    /** The change set; the builder must not be used afterwards. */
    public ChangeSet build() {
      ChangeSet built = new ChangeSet(writes, deletes);
      writes = null;
      deletes = null;
      return built;
    }
  }

  /** Path to bytes; the arrays are shared, do not modify them. */
  public SortedMap<String, byte[]> writes() {
    return writes;
  }

  public SortedSet<String> deletes() {
    return deletes;
  }

  public boolean isEmpty() {
    return writes.isEmpty() && deletes.isEmpty();
  }

  /**
   * Rejects paths that could escape the work tree or touch git's own files. The pipeline only
   * builds paths from tree entries, so a bad one here is a bug, not a user error.
   */
  static String checkedPath(String path) {
    if (path == null
        || path.isEmpty()
        || path.startsWith("/")
        || path.endsWith("/")
        || path.contains("\\")
        || path.contains("\0")) {
      throw new InternalProblem("Refusing unsafe repository path \"" + path + "\" in a change set");
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty()
          || segment.equals(".")
          || segment.equals("..")
          || segment.equalsIgnoreCase(".git")) {
        throw new InternalProblem(
            "Refusing unsafe repository path \"" + path + "\" in a change set");
      }
    }
    return path;
  }

  @Override
  public String toString() {
    return "ChangeSet{writes=" + writes.keySet() + ", deletes=" + deletes + "}";
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ChangeSet other) || !deletes.equals(other.deletes)) {
      return false;
    }
    if (!writes.keySet().equals(other.writes.keySet())) {
      return false;
    }
    for (Map.Entry<String, byte[]> e : writes.entrySet()) {
      if (!Arrays.equals(e.getValue(), other.writes.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return writes.keySet().hashCode() * 31 + deletes.hashCode();
  }
}
