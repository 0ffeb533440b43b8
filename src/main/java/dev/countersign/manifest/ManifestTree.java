package dev.countersign.manifest;

import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The one rule for which files are manifests and which entries of a managed (unsigned or signed)
 * directory countersign refuses. {@code run}, {@code sign}, {@code verify DIR}, {@code check},
 * {@code promote} and the refresh all ask this class, whether the directory comes from a commit's
 * tree or from the work tree, so no file can be signed by one command and skipped by another.
 *
 * <p><b>A manifest</b> is a regular file whose name ends in {@code .yaml} or {@code .yml} in any
 * letter case ({@code np.YAML}, {@code np.Yml}), at any depth. Dot-files ({@code .np.yaml}) and
 * files under dot-directories ({@code .hidden/np.yaml}) are manifests too, everywhere: git and the
 * pull request diff show them to the reviewer like any other file, and a leading dot says nothing
 * about whether a cluster tool will apply the file. Skipping them anywhere would give an author a
 * name that one command signs and another never looks at; refusing them would only move that blind
 * spot. Other files (a {@code README.md}) are left alone.
 *
 * <p><b>Refused</b> ({@link InputProblem}, exit code 6, one per entry, each naming it), for every
 * entry under a managed directory whatever its extension, and for the directory itself and its
 * parents up to the repository root:
 *
 * <ul>
 *   <li>symbolic links (to files or directories, relative or absolute), submodules and other
 *       entries that are neither regular files nor directories: countersign never follows a link,
 *       so a link cannot make it read or write outside the work tree;
 *   <li>names that the operating system or Kubernetes tooling cannot carry faithfully: not UTF-8,
 *       control characters (newline, tab, escape...), a backslash, empty, {@code .} or {@code ..}
 *       segments, a {@code .git} segment, a segment over {@value #MAX_SEGMENT_BYTES} bytes (the
 *       usual file-name limit) or a path over {@value #MAX_PATH_BYTES} bytes;
 *   <li>manifests larger than {@link #maxBytes()}, judged from the size the tree or the file system
 *       reports, before a byte is read.
 * </ul>
 *
 * <p>Thread-safe; holds only its size limit.
 */
public final class ManifestTree {

  /** Longest name segment, in UTF-8 bytes ({@code NAME_MAX} on Linux and macOS). */
  public static final int MAX_SEGMENT_BYTES = 255;

  /**
   * Longest repository-relative path, in UTF-8 bytes: far below {@code PATH_MAX} (4096) once joined
   * to a runner's workspace directory, and short enough to read in a log line.
   */
  public static final int MAX_PATH_BYTES = 1024;

  /** What kind of entry a tree or directory listing holds. */
  public enum Type {
    FILE,
    DIRECTORY,
    LINK,
    OTHER
  }

  /**
   * One entry under a managed directory, or a parent of it that is not a directory.
   *
   * @param path repository-relative (or relative to the listed root), {@code /}-separated; a name
   *     that is not valid UTF-8 carries U+FFFD where the bad bytes were
   * @param size in bytes, for files
   */
  public record Entry(String path, Type type, long size) {}

  private final long maxBytes;

  public ManifestTree(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** With the reader's size limit, so discovery and reading refuse the same files. */
  public static ManifestTree of(ManifestReader reader) {
    return new ManifestTree(reader.maxBytes());
  }

  public long maxBytes() {
    return maxBytes;
  }

  /**
   * What a standard Sigstore bundle written beside a signed manifest adds to the manifest's name
   * ({@code x.yaml} → {@code x.yaml.sigstore.json}): {@code sign --bundle-sidecar} writes it, and
   * the gate accepts it under a signed directory only beside its manifest.
   */
  public static final String SIDECAR_SUFFIX = ".sigstore.json";

  /** True when {@code path}'s last segment ends in {@code .yaml} or {@code .yml}, in any case. */
  public static boolean isManifestName(String path) {
    String lower = path.toLowerCase(Locale.ROOT);
    return lower.endsWith(".yaml") || lower.endsWith(".yml");
  }

  /**
   * The manifests among {@code entries}, sorted by path.
   *
   * @param entries everything found under one managed directory (and any parent of it that is not a
   *     directory)
   * @throws InputProblem combining one problem per refused entry
   */
  public List<Entry> manifests(Collection<Entry> entries) {
    return files(entries).stream().filter(entry -> isManifestName(entry.path())).toList();
  }

  /**
   * The regular files among {@code entries}, manifests or not, sorted by path: what else a managed
   * directory holds matters to the tools that deploy it.
   *
   * @throws InputProblem combining one problem per refused entry, as {@link #manifests}
   */
  public List<Entry> files(Collection<Entry> entries) {
    List<InputProblem> problems = new ArrayList<>();
    List<Entry> files = new ArrayList<>();
    for (Entry entry : entries.stream().sorted(Comparator.comparing(Entry::path)).toList()) {
      Optional<InputProblem> refused = refusal(entry);
      if (refused.isPresent()) {
        problems.add(refused.get());
      } else if (entry.type() == Type.FILE) {
        files.add(entry);
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
    return files;
  }

  /** Why {@code entry} is refused, if it is. */
  private Optional<InputProblem> refusal(Entry entry) {
    Path shown = displayPath(entry.path());
    Optional<String> badName = nameProblem(entry.path());
    if (badName.isPresent()) {
      return Optional.of(
          new InputProblem(
              shown,
              0,
              badName.get(),
              "perhaps you should rename it to plain letters, digits, dots, dashes and"
                  + " underscores"));
    }
    return switch (entry.type()) {
      case LINK ->
          Optional.of(
              new InputProblem(
                  shown,
                  0,
                  "is a symbolic link; countersign never follows links under a signed or unsigned"
                      + " directory",
                  "perhaps you should replace the link with the file or directory it points to"));
      case OTHER ->
          Optional.of(
              new InputProblem(
                  shown,
                  0,
                  "is not a regular file or directory (a submodule or special file)",
                  "perhaps you should keep only manifest files and directories under signed and"
                      + " unsigned directories"));
      case FILE ->
          entry.size() > maxBytes && isManifestName(entry.path())
              ? Optional.of(
                  new InputProblem(
                      shown,
                      0,
                      tooLarge(entry.size()),
                      "perhaps you should split it into smaller files"))
              : Optional.empty();
      case DIRECTORY -> Optional.empty();
    };
  }

  /**
   * Why the file made from {@code source} cannot be written at {@code target}, if it cannot: a
   * parent of the target that is there but is a file, or a directory at the target itself. git
   * holds no file where a directory is, so the commit could not be made; {@code run}, {@code
   * check}, the refresh and {@code promote} ask this before anything is signed or written. A link
   * or submodule on the way is refused on its own ({@link #manifests}, {@link #walk}) and is not
   * reported again here.
   *
   * @param target repository-relative, {@code /}-separated
   * @param made what {@code target} is of {@code source}, for the message: "the signed file" of an
   *     unsigned manifest, "the copy" of a promoted one
   * @param source the manifest {@code target} is made from, for the message
   * @param typeAt what is at a repository-relative path, in the commit or work tree that is judged
   */
  public static Optional<InputProblem> unwritableTarget(
      String target, String made, String source, Function<String, Optional<Type>> typeAt) {
    for (int slash = target.indexOf('/'); slash > 0; slash = target.indexOf('/', slash + 1)) {
      String parent = target.substring(0, slash);
      Optional<Type> type = typeAt.apply(parent);
      if (type.isEmpty()) {
        return Optional.empty(); // nothing below it either: the write makes the directories
      }
      if (type.get() == Type.LINK || type.get() == Type.OTHER) {
        return Optional.empty(); // refused on its own, and never looked through
      }
      if (type.get() == Type.FILE) {
        return Optional.of(
            new InputProblem(
                displayPath(parent),
                0,
                "is a file, but "
                    + escaped(target)
                    + ", "
                    + made
                    + " of "
                    + escaped(source)
                    + ", is to be written below it",
                "perhaps you should remove or rename it"));
      }
    }
    if (typeAt.apply(target).filter(type -> type == Type.DIRECTORY).isPresent()) {
      return Optional.of(
          new InputProblem(
              displayPath(target),
              0,
              "is a directory, but " + made + " of " + escaped(source) + " is to be written there",
              "perhaps you should remove or rename the directory, or rename " + escaped(source)));
    }
    return Optional.empty();
  }

  /**
   * What is at {@code relative} below the work tree {@code root}, the entry itself (a link is not
   * followed); empty when nothing is there.
   */
  public static Optional<Type> typeIn(Path root, String relative) {
    return NoFollowPaths.lstat(root.resolve(relative)).map(ManifestTree::typeOf);
  }

  /** The message for a manifest of {@code size} bytes over the limit. */
  public String tooLarge(long size) {
    return "is "
        + size
        + " bytes, larger than the limit of "
        + maxBytes
        + " bytes for one manifest file";
  }

  /**
   * What is wrong with a repository-relative path's name, if anything (see the class comment).
   * Checks every segment, so a bad directory name is caught on the files below it.
   */
  public static Optional<String> nameProblem(String path) {
    if (path.isEmpty()) {
      return Optional.of("has an empty name");
    }
    if (path.indexOf('\uFFFD') >= 0) {
      return Optional.of("has a name that is not valid UTF-8");
    }
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
        return Optional.of(String.format("has a control character (U+%04X) in its name", (int) c));
      }
      if (c == '\\') {
        return Optional.of("has a backslash in its name");
      }
    }
    if (path.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
      return Optional.of("has a path longer than " + MAX_PATH_BYTES + " bytes");
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        return Optional.of("has an empty, \".\" or \"..\" segment in its path");
      }
      if (segment.equalsIgnoreCase(".git")) {
        return Optional.of("has a \".git\" segment in its path");
      }
      if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
        return Optional.of("has a name segment longer than " + MAX_SEGMENT_BYTES + " bytes");
      }
    }
    return Optional.empty();
  }

  /**
   * The manifests under {@code directory} of the work tree {@code root}, read without following any
   * link: {@code directory} and each of its parents below {@code root} must be real directories,
   * and every entry under it is checked as {@link #manifests} says. A missing directory has no
   * manifests.
   *
   * @param directory relative to {@code root}, {@code /}-separated; empty for {@code root} itself
   * @return entries with paths relative to {@code root}, sorted
   * @throws InputProblem for refused entries, named relative to {@code root}
   */
  public List<Entry> walk(Path root, String directory) {
    return manifests(entriesUnder(root, directory));
  }

  /**
   * Every regular file under {@code directory} of the work tree {@code root}, manifests or not,
   * found and refused as {@link #walk} finds and refuses them.
   */
  public List<Entry> walkFiles(Path root, String directory) {
    return files(entriesUnder(root, directory));
  }

  /** Everything under {@code directory}, or the parent of it that is not a directory. */
  private static List<Entry> entriesUnder(Path root, String directory) {
    Path base = root.toAbsolutePath().normalize();
    List<Entry> entries = new ArrayList<>();
    Path dir = base;
    if (!directory.isEmpty()) {
      nameProblem(directory)
          .ifPresent(
              problem -> {
                throw new InputProblem(
                    displayPath(directory),
                    0,
                    problem,
                    "perhaps you should choose a plain directory name");
              });
      for (String segment : directory.split("/")) {
        dir = dir.resolve(segment);
        Optional<BasicFileAttributes> attributes = NoFollowPaths.lstat(dir);
        if (attributes.isEmpty()) {
          return List.of();
        }
        if (!attributes.get().isDirectory()) {
          entries.add(
              new Entry(relative(base, dir), typeOf(attributes.get()), attributes.get().size()));
          return entries;
        }
      }
    }
    visitBelow(
        dir,
        true,
        (path, attributes) ->
            entries.add(
                new Entry(
                    relative(base, path),
                    typeOf(attributes),
                    attributes.isDirectory() ? 0 : attributes.size())));
    return entries;
  }

  /**
   * Expands files and directories named on a command line into manifest files: a directory gives
   * its manifests ({@link #walk} from it, so links below it are refused); a file is taken as it is
   * (the reader refuses links and oversized files). A missing path is a usage error.
   */
  public List<Path> expand(List<Path> inputs) {
    List<Path> files = new ArrayList<>();
    for (Path input : inputs) {
      if (Files.isDirectory(input, LinkOption.NOFOLLOW_LINKS)) {
        for (Entry entry : walk(input, "")) {
          files.add(input.resolve(entry.path()));
        }
      } else if (Files.exists(input, LinkOption.NOFOLLOW_LINKS)) {
        files.add(input);
      } else {
        throw new UsageProblem(
            "No such file or directory: " + input,
            "check the path (it is resolved against " + Path.of("").toAbsolutePath() + ")");
      }
    }
    return files.stream().map(Path::normalize).distinct().toList();
  }

  /**
   * Every manifest-named entry below the directory {@code dir}, sorted, for commands that only
   * describe a repository ({@code init}, {@code doctor}) and skip what they cannot read: nothing is
   * refused here, no link is followed (a link is listed, and {@link ManifestReader} refuses to read
   * it). None when {@code dir} is not a directory (a link to one included).
   */
  public static List<Path> listUnder(Path dir) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    List<Path> files = new ArrayList<>();
    visitBelow(
        dir,
        false,
        (file, attributes) -> {
          if ((attributes.isRegularFile() || attributes.isSymbolicLink())
              && isManifestName(file.getFileName().toString())) {
            files.add(file);
          }
        });
    files.sort(Comparator.naturalOrder());
    return files;
  }

  /**
   * Hands every entry below {@code dir} (directories too, not {@code dir} itself) to {@code visit},
   * never following a link: a link is handed over as the link. {@code strict}: an entry that cannot
   * be read fails the walk; otherwise it is skipped.
   *
   * @throws EnvironmentProblem when the walk fails
   */
  private static void visitBelow(
      Path dir, boolean strict, BiConsumer<Path, BasicFileAttributes> visit) {
    try {
      Files.walkFileTree(
          dir,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attributes) {
              if (!d.equals(dir)) {
                visit.accept(d, attributes);
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
              // Links are reported here, not followed: walkFileTree was not asked to follow them.
              visit.accept(file, attributes);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (strict) {
                throw e;
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not list the files under " + dir + ": " + e.getMessage(),
          "perhaps you should check that the directory is readable",
          e);
    }
  }

  private static Type typeOf(BasicFileAttributes attributes) {
    if (attributes.isSymbolicLink()) {
      return Type.LINK;
    }
    if (attributes.isRegularFile()) {
      return Type.FILE;
    }
    return attributes.isDirectory() ? Type.DIRECTORY : Type.OTHER;
  }

  private static String relative(Path base, Path path) {
    return base.relativize(path).toString().replace(File.separatorChar, '/');
  }

  /**
   * How an entry is named in messages and annotations: as it is, except that control characters and
   * backslashes are written as escapes ({@code \n}, {@code \x1b}, {@code \\}), so a name can never
   * break a log line or pose as a workflow command.
   */
  public static Path displayPath(String path) {
    return Path.of(escaped(path));
  }

  /** {@code path} with control characters and backslashes escaped; see {@link #displayPath}. */
  public static String escaped(String path) {
    StringBuilder out = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
            out.append(
                c < 0x100 ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }
}
