package dev.countersign.git;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

/**
 * Ignore files in gitignore syntax, each scoped to the directory it sits in, matched as Flux's
 * source-controller matches its {@code .sourceignore} files when it builds the artifact Flux
 * deploys: fluxcd/pkg {@code sourceignore.ReadPatterns} and {@code LoadIgnorePatterns}, with the
 * matcher fluxcd/pkg copied from go-git v5.16.4 ({@code sourceignore/gitignore/pattern.go}), which
 * matches each name with Go's {@code path/filepath.Match}. That is not git's own matching, and the
 * differences decide what Flux leaves out: only {@code [^...]} negates a bracket ({@code [!d]} is
 * the set of {@code !} and {@code d}), there are no {@code [:alpha:]} classes, a segment holding
 * {@code **} beside other characters matches nothing, and the last pattern that matches a file
 * decides even under a directory another pattern excludes. So this is a port of that code, byte for
 * byte, rather than a git matcher.
 *
 * <p>The patterns of every file, shallower directories first, lines in order; lines starting with
 * {@code #} and lines of white space only are no patterns. Flux reads the lines with a {@code
 * bufio.Scanner}, which stops at a line that does not fit its 64 KiB buffer: that line and every
 * later one are no patterns ({@link #lineFluxStopsAt}).
 *
 * <p>What Flux leaves out is {@link #fluxArtifact()}: source-controller's {@code
 * SourceIgnoreFilter} puts fluxcd/pkg's VCS patterns before the loaded ones and, only when it
 * loaded no pattern at all, its default list too ({@code NewDefaultMatcher}).
 *
 * <p>Immutable once built; not thread-safe while files are being added.
 */
public final class IgnorePatterns {

  /** fluxcd/pkg {@code sourceignore.ExcludeVCS}: always left out. */
  private static final List<String> VCS =
      List.of(".git/", ".gitignore", ".gitmodules", ".gitattributes");

  /**
   * fluxcd/pkg {@code sourceignore.ExcludeExt}, {@code ExcludeCI} and {@code ExcludeExtra}, in
   * {@code DefaultPatterns}' order: left out only when the repository holds no pattern.
   */
  private static final List<String> DEFAULTS =
      List.of(
          "*.jpg",
          "*.jpeg",
          "*.gif",
          "*.png",
          "*.wmv",
          "*.flv",
          "*.tar.gz",
          "*.zip",
          ".github/",
          ".circleci/",
          ".travis.yml",
          ".gitlab-ci.yml",
          "appveyor.yml",
          ".drone.yml",
          "cloudbuild.yaml",
          "codeship-services.yml",
          "codeship-steps.yml",
          "**/.goreleaser.yml",
          "**/.sops.yaml",
          "**/.flux.yaml");

  /** Go's {@code bufio.MaxScanTokenSize}: a line and its newline must fit in it. */
  private static final int SCANNER_BUFFER = 64 * 1024;

  private static final byte[] ANY_DIRECTORIES = {'*', '*'};

  /** go-git's {@code pattern}: the domain is the directory of its file, by segment. */
  private record Pattern(
      List<byte[]> domain,
      List<byte[]> segments,
      boolean inclusion,
      boolean dirOnly,
      boolean glob) {}

  private final List<Pattern> patterns = new ArrayList<>();
  private boolean patternNotAdded;

  /**
   * Adds the patterns of one ignore file. Add the files of shallower directories first.
   *
   * @param directory the directory the file sits in, repository-relative, {@code /}-separated,
   *     empty for the root
   * @param content the file's bytes
   */
  public IgnorePatterns add(String directory, byte[] content) {
    List<byte[]> domain = directory.isEmpty() ? List.of() : split(utf8(directory));
    int stop = lineFluxStopsAt(content).orElse(Integer.MAX_VALUE);
    List<byte[]> lines = lines(content);
    for (int i = 0; i < lines.size() && i + 1 < stop; i++) {
      byte[] line = lines.get(i);
      String text = new String(line, StandardCharsets.UTF_8);
      if (line.length > 0 && line[0] == '#'
          || text.codePoints().allMatch(IgnorePatterns::goSpace)) {
        continue;
      }
      patterns.add(parse(line, domain));
    }
    return this;
  }

  /** {@link #add(String, byte[])} for text. */
  public IgnorePatterns add(String directory, String text) {
    return add(directory, utf8(text));
  }

  /**
   * Counts a pattern of an ignore file Flux reads whose patterns are not added (one the caller
   * could not read as Flux does, or one whose directory holds no file the caller asks about): Flux
   * then applies no default list ({@link #fluxArtifact()}), whatever else was added.
   */
  public IgnorePatterns countPatternNotAdded() {
    patternNotAdded = true;
    return this;
  }

  /** True when a pattern was added (or counted by {@link #countPatternNotAdded()}). */
  public boolean holdsAPattern() {
    return patternNotAdded || !patterns.isEmpty();
  }

  /**
   * The patterns Flux's source-controller leaves files out of its artifact by, when these are every
   * {@code .sourceignore} of the repository and the {@code GitRepository} has no {@code
   * spec.ignore}: source-controller's {@code SourceIgnoreFilter}, which matches with fluxcd/pkg's
   * {@code NewDefaultMatcher} (VCS patterns, then the default list, then these) when no pattern was
   * loaded and with the VCS patterns then these otherwise. The last pattern that matches decides,
   * so these override both lists.
   */
  public IgnorePatterns fluxArtifact() {
    IgnorePatterns artifact = new IgnorePatterns();
    VCS.forEach(pattern -> artifact.patterns.add(parse(utf8(pattern), List.of())));
    if (!holdsAPattern()) {
      DEFAULTS.forEach(pattern -> artifact.patterns.add(parse(utf8(pattern), List.of())));
    }
    artifact.patterns.addAll(patterns);
    artifact.patternNotAdded = patternNotAdded;
    return artifact;
  }

  /** True when Flux leaves the file at {@code path} (repository-relative, {@code /}) out. */
  public boolean ignores(String path) {
    List<byte[]> segments = split(utf8(path));
    // go-git's Matcher.Match, as source-controller's archive filter calls it for a file.
    for (int i = patterns.size() - 1; i >= 0; i--) {
      Pattern pattern = patterns.get(i);
      if (matches(pattern, segments, false)) {
        return !pattern.inclusion();
      }
    }
    return false;
  }

  /**
   * The 1-based number of the first line Flux's reader does not fit in its buffer, if any: Flux
   * reads no pattern from it or any later line.
   */
  public static OptionalInt lineFluxStopsAt(byte[] content) {
    int number = 1;
    int start = 0;
    for (int i = 0; i <= content.length; i++) {
      if (i == content.length || content[i] == '\n') {
        // The scanner needs the line and its newline in the buffer; the last line, without one,
        // is read whole only when the buffer is not full before the end is seen.
        if (i - start + 1 > SCANNER_BUFFER || i == content.length && i - start >= SCANNER_BUFFER) {
          return OptionalInt.of(number);
        }
        number++;
        start = i + 1;
      }
    }
    return OptionalInt.empty();
  }

  /** bufio.ScanLines: lines end at {@code \n}, a {@code \r} before it is dropped. */
  private static List<byte[]> lines(byte[] content) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= content.length; i++) {
      if (i == content.length && start == i) {
        break;
      }
      if (i == content.length || content[i] == '\n') {
        int end = i > start && content[i - 1] == '\r' ? i - 1 : i;
        lines.add(Arrays.copyOfRange(content, start, end));
        start = i + 1;
      }
    }
    return lines;
  }

  /** Go's {@code unicode.IsSpace}, which {@code strings.TrimSpace} trims. */
  private static boolean goSpace(int c) {
    return c == '\t'
        || c == '\n'
        || c == 0x0B
        || c == '\f'
        || c == '\r'
        || c == 0x85
        || Character.isSpaceChar(c);
  }

  /** go-git's {@code ParsePattern}. */
  private static Pattern parse(byte[] line, List<byte[]> domain) {
    int from = 0;
    int to = line.length;
    boolean inclusion = line.length > 0 && line[0] == '!';
    if (inclusion) {
      from = 1;
    }
    boolean escapedSpace = to - from >= 2 && line[to - 1] == ' ' && line[to - 2] == '\\';
    if (!escapedSpace) {
      while (to > from && line[to - 1] == ' ') {
        to--;
      }
    }
    boolean dirOnly = to > from && line[to - 1] == '/';
    if (dirOnly) {
      to--;
    }
    byte[] pattern = Arrays.copyOfRange(line, from, to);
    boolean glob = indexOf(pattern, (byte) '/', 0) >= 0;
    return new Pattern(domain, split(pattern), inclusion, dirOnly, glob);
  }

  /** go-git's {@code pattern.Match}: true for Exclude or Include, false for NoMatch. */
  private static boolean matches(Pattern pattern, List<byte[]> path, boolean isDir) {
    if (path.size() <= pattern.domain().size()) {
      return false;
    }
    for (int i = 0; i < pattern.domain().size(); i++) {
      if (!Arrays.equals(path.get(i), pattern.domain().get(i))) {
        return false;
      }
    }
    List<byte[]> rest = path.subList(pattern.domain().size(), path.size());
    return pattern.glob() ? globMatch(pattern, rest, isDir) : simpleNameMatch(pattern, rest, isDir);
  }

  private static boolean simpleNameMatch(Pattern pattern, List<byte[]> path, boolean isDir) {
    for (int i = 0; i < path.size(); i++) {
      int match = GoMatch.match(pattern.segments().get(0), path.get(i));
      if (match < 0) {
        return false;
      }
      if (match == 0) {
        continue;
      }
      return !(pattern.dirOnly() && !isDir && i == path.size() - 1);
    }
    return false;
  }

  private static boolean globMatch(Pattern pattern, List<byte[]> path, boolean isDir) {
    boolean matched = false;
    boolean canTraverse = false;
    int at = 0;
    List<byte[]> segments = pattern.segments();
    for (int i = 0; i < segments.size(); i++) {
      byte[] segment = segments.get(i);
      if (segment.length == 0) {
        canTraverse = false;
        continue;
      }
      if (Arrays.equals(segment, ANY_DIRECTORIES)) {
        if (i == segments.size() - 1) {
          break;
        }
        canTraverse = true;
        continue;
      }
      if (contains(segment, ANY_DIRECTORIES)) {
        return false;
      }
      if (at == path.size()) {
        return false;
      }
      if (canTraverse) {
        canTraverse = false;
        while (at < path.size()) {
          int match = GoMatch.match(segment, path.get(at++));
          if (match < 0) {
            return false;
          } else if (match > 0) {
            matched = true;
            break;
          } else if (at == path.size()) {
            matched = false;
          }
        }
      } else {
        if (GoMatch.match(segment, path.get(at)) <= 0) {
          return false;
        }
        matched = true;
        at++;
      }
    }
    if (matched && pattern.dirOnly() && !isDir && at == path.size()) {
      matched = false;
    }
    return matched;
  }

  private static List<byte[]> split(byte[] bytes) {
    List<byte[]> parts = new ArrayList<>();
    int start = 0;
    for (int slash = indexOf(bytes, (byte) '/', 0);
        slash >= 0;
        slash = indexOf(bytes, (byte) '/', start)) {
      parts.add(Arrays.copyOfRange(bytes, start, slash));
      start = slash + 1;
    }
    parts.add(Arrays.copyOfRange(bytes, start, bytes.length));
    return parts;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static boolean contains(byte[] bytes, byte[] part) {
    for (int i = 0; i + part.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
        return true;
      }
    }
    return false;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Go's {@code path/filepath.Match} on a Unix system, over bytes: {@code *}, {@code ?}, {@code
   * [...]} with {@code ^} negating and {@code \} escaping; {@code ?} and brackets take one UTF-8
   * rune, an invalid byte being a rune of its own.
   */
  private static final class GoMatch {

    private static final int BAD_PATTERN = -1;
    private static final int RUNE_ERROR = 0xFFFD;

    private GoMatch() {}

    /** 1 when {@code name} matches, 0 when not, {@link #BAD_PATTERN} when Go errs. */
    static int match(byte[] pattern, byte[] name) {
      int p = 0;
      int n = 0;
      patterns:
      while (p < pattern.length) {
        boolean star = false;
        while (p < pattern.length && pattern[p] == '*') {
          p++;
          star = true;
        }
        int chunkEnd = chunkEnd(pattern, p);
        if (star && chunkEnd == p) {
          return indexOf(Arrays.copyOfRange(name, n, name.length), (byte) '/', 0) < 0 ? 1 : 0;
        }
        int rest = matchChunk(pattern, p, chunkEnd, name, n);
        boolean last = chunkEnd == pattern.length;
        if (rest >= 0 && (rest == name.length || !last)) {
          n = rest;
          p = chunkEnd;
          continue;
        }
        if (rest == BAD) {
          return BAD_PATTERN;
        }
        if (star) {
          for (int i = n; i < name.length && name[i] != '/'; i++) {
            int skipped = matchChunk(pattern, p, chunkEnd, name, i + 1);
            if (skipped >= 0) {
              if (last && skipped < name.length) {
                continue;
              }
              n = skipped;
              p = chunkEnd;
              continue patterns;
            }
            if (skipped == BAD) {
              return BAD_PATTERN;
            }
          }
        }
        // Go checks that the rest of the pattern is well formed before it answers no.
        for (int q = chunkEnd; q < pattern.length; ) {
          while (q < pattern.length && pattern[q] == '*') {
            q++;
          }
          int end = chunkEnd(pattern, q);
          if (matchChunk(pattern, q, end, new byte[0], 0) == BAD) {
            return BAD_PATTERN;
          }
          q = end;
        }
        return 0;
      }
      return n == name.length ? 1 : 0;
    }

    /** Go's {@code scanChunk}: the chunk up to the next {@code *} outside a bracket. */
    private static int chunkEnd(byte[] pattern, int from) {
      boolean inRange = false;
      int i = from;
      for (; i < pattern.length; i++) {
        byte b = pattern[i];
        if (b == '\\') {
          if (i + 1 < pattern.length) {
            i++;
          }
        } else if (b == '[') {
          inRange = true;
        } else if (b == ']') {
          inRange = false;
        } else if (b == '*' && !inRange) {
          break;
        }
      }
      return i;
    }

    private static final int NO = -1;
    private static final int BAD = -2;

    /**
     * Go's {@code matchChunk}: where {@code name} continues after the chunk matched at {@code n},
     * {@link #NO} when it does not, {@link #BAD} when the chunk is malformed.
     */
    private static int matchChunk(byte[] pattern, int c, int end, byte[] name, int n) {
      boolean failed = false;
      while (c < end) {
        if (!failed && n == name.length) {
          failed = true;
        }
        byte b = pattern[c];
        if (b == '[') {
          int rune = 0;
          if (!failed) {
            int[] decoded = decode(name, n);
            rune = decoded[0];
            n += decoded[1];
          }
          c++;
          boolean negated = c < end && pattern[c] == '^';
          if (negated) {
            c++;
          }
          boolean match = false;
          int ranges = 0;
          while (true) {
            if (c < end && pattern[c] == ']' && ranges > 0) {
              c++;
              break;
            }
            int[] lo = escaped(pattern, c, end);
            if (lo == null) {
              return BAD;
            }
            c = lo[1];
            int hi = lo[0];
            if (pattern[c] == '-') {
              int[] high = escaped(pattern, c + 1, end);
              if (high == null) {
                return BAD;
              }
              hi = high[0];
              c = high[1];
            }
            if (lo[0] <= rune && rune <= hi) {
              match = true;
            }
            ranges++;
          }
          if (match == negated) {
            failed = true;
          }
        } else if (b == '?') {
          if (!failed) {
            if (name[n] == '/') {
              failed = true;
            }
            n += decode(name, n)[1];
          }
          c++;
        } else {
          if (b == '\\') {
            c++;
            if (c == end) {
              return BAD;
            }
          }
          if (!failed) {
            if (pattern[c] != name[n]) {
              failed = true;
            }
            n++;
          }
          c++;
        }
      }
      return failed ? NO : n;
    }

    /** Go's {@code getEsc}: the rune at {@code c} and where the chunk goes on, null when bad. */
    private static int[] escaped(byte[] pattern, int c, int end) {
      if (c >= end || pattern[c] == '-' || pattern[c] == ']') {
        return null;
      }
      if (pattern[c] == '\\') {
        c++;
        if (c >= end) {
          return null;
        }
      }
      int[] decoded = decode(pattern, c);
      if (decoded[0] == RUNE_ERROR && decoded[1] == 1) {
        return null;
      }
      int next = c + decoded[1];
      if (next >= end) {
        return null;
      }
      return new int[] {decoded[0], next};
    }

    /** Go's {@code utf8.DecodeRune}: the rune at {@code at} and its width; bad bytes are 1. */
    private static int[] decode(byte[] bytes, int at) {
      int b0 = bytes[at] & 0xFF;
      if (b0 < 0x80) {
        return new int[] {b0, 1};
      }
      int width = b0 >= 0xF5 ? 0 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
      if (width == 0 || at + width > bytes.length) {
        return new int[] {RUNE_ERROR, 1};
      }
      int rune = b0 & (width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07);
      for (int i = 1; i < width; i++) {
        int b = bytes[at + i] & 0xFF;
        if ((b & 0xC0) != 0x80) {
          return new int[] {RUNE_ERROR, 1};
        }
        rune = rune << 6 | b & 0x3F;
      }
      boolean overlong =
          width == 3 && rune < 0x800 || width == 4 && (rune < 0x10000 || rune > 0x10FFFF);
      boolean surrogate = rune >= 0xD800 && rune <= 0xDFFF;
      if (overlong || surrogate) {
        return new int[] {RUNE_ERROR, 1};
      }
      return new int[] {rune, width};
    }
  }
}
